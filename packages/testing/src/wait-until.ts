/** Polls a condition until it holds, failing with `what` after the timeout: a wait, never an assertion by sleeping. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  {
    what = 'condition',
    timeoutMs = 10_000,
    intervalMs = 10,
  }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
