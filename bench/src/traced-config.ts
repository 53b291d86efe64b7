// Turns tracing on or off for an agent's engine in the bench by publishing its config again with an
// observability section (or null), as the manager's observability resource will: the same row, version + 1.
import pg from 'pg';

export async function publishObservability(
  databaseUrl: string,
  agentId: string,
  observability: Record<string, unknown> | null,
): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>(
      `UPDATE engine_configs SET config = jsonb_set(config, '{observability}', $2::jsonb), version = version + 1
        WHERE agent_id = $1 RETURNING version`,
      [agentId, JSON.stringify(observability)],
    );
    await client.query("SELECT pg_notify('engine_config_changed', $1)", [agentId]);
    return Number(rows[0]?.version);
  } finally {
    await client.end();
  }
}

/** Resolves once the engine at `engineUrl` serves config `version` or a later one. */
export async function waitForConfigVersion(engineUrl: string, version: number): Promise<void> {
  for (;;) {
    const health = (await (await fetch(`${engineUrl}/health`)).json()) as { config_version?: number };
    if ((health.config_version ?? 0) >= version) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
