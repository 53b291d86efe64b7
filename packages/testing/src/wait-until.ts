/**
 * Polls a condition until it holds, failing with `what` after the timeout: a wait, never an assertion by
 * sleeping. The default is a bound on a hang, not on speed: CI machines run suites side by side on two
 * cores, where a channel's reply once took more than 10 s. It stays under the suites' 60 s test timeout,
 * so that a hang still names what it waited for.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  {
    what = 'condition',
    timeoutMs = 30_000,
    intervalMs = 10,
  }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
