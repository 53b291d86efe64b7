// Waits for an agent's engine to serve the config the manager published after a change (bench 4 turns
// tracing on and off through the observability resource, and each round must measure the new config).

/** Resolves once the engine at `engineUrl` serves config `version` or a later one. */
export async function waitForConfigVersion(engineUrl: string, version: number): Promise<void> {
  for (;;) {
    const health = (await (await fetch(`${engineUrl}/health`)).json()) as { config_version?: number };
    if ((health.config_version ?? 0) >= version) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
