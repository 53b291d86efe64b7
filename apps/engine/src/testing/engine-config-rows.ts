// What the manager's publish does to an engine's row, and what the database shows of an engine's
// connections, for the tests of database mode: on the suite's database or on one of a test's own.
import type { Db } from '@agentplane/db';

export type AgentRow = { agentId: string; workspaceId: string };

/** Stores `config` as the agent's engine_configs row at `version`, as a publish would (without NOTIFY). */
export async function writeConfigRow(db: Db, agent: AgentRow, version: number, config: unknown): Promise<void> {
  await db.engineConfig.upsert({
    where: { agentId: agent.agentId },
    create: { ...agent, version: BigInt(version), config: config as object },
    update: { version: BigInt(version), config: config as object },
  });
}

export async function notifyConfigChanged(db: Db, agentId: string): Promise<void> {
  await db.$executeRaw`SELECT pg_notify('engine_config_changed', ${agentId})`;
}

/** Backend pids of the LISTEN connections open on the database, each done with its LISTEN. */
export async function listenerPids(db: Db): Promise<number[]> {
  const rows = await db.$queryRawUnsafe<{ pid: number }[]>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN engine_config_changed' AND state = 'idle'",
  );
  return rows.map((row) => row.pid);
}
