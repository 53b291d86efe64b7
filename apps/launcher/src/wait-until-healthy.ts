/** Polls a service's health URL until it answers 2xx: the launcher starts services and waits for them. */
export async function waitUntilHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become healthy in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
