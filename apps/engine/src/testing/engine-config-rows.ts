// What the manager's publish does to an engine's row, and what the database shows of an engine's
// connections, for the tests of database mode: on the suite's database or on one of a test's own.
import type { Db } from '@agentplane/db';
import { makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import type pg from 'pg';
import { makeLlmEngineConfig } from './engine-configs.js';
import { engineCredentialsFor } from './test-engine.js';

export type AgentRow = { agentId: string; workspaceId: string };

/** Stores `config` as the agent's engine_configs row at `version`, as a publish would (without NOTIFY). */
export async function writeConfigRow(db: Db, agent: AgentRow, version: number, config: unknown): Promise<void> {
  await db.engineConfig.upsert({
    where: { agentId: agent.agentId },
    create: { ...agent, version: BigInt(version), config: config as object },
    update: { version: BigInt(version), config: config as object },
  });
}

/** What the manager sends after a publish: a NOTIFY on the agent's own config channel. */
export async function notifyConfigChanged(db: Db, agentId: string): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(config_channel, 'config') FROM engine_channels WHERE agent_id = ${agentId}::uuid`;
}

/**
 * Backend pids of the LISTEN connections open on the database that listen on a config channel, each
 * idle after its LISTEN (the engine's one LISTEN connection sends `LISTEN a; LISTEN b` at connect, and
 * `LISTEN c` for a channel added later). The config is read again on every (re)connect of that
 * connection, so a version written once it is idle is served by NOTIFY or by that read.
 */
export async function listenerPids(db: Db): Promise<number[]> {
  const rows = await db.$queryRawUnsafe<{ pid: number }[]>(
    `SELECT a.pid FROM pg_stat_activity a WHERE a.datname = current_database() AND a.state = 'idle'
       AND a.query ~ '^LISTEN ' AND EXISTS (
         SELECT 1 FROM engine_channels c WHERE position('LISTEN ' || c.config_channel IN a.query) > 0)`,
  );
  return rows.map((row) => row.pid);
}

/** An agent with a published config, and a client logged in as its engine role (ended by database.drop). */
export async function makeEngineAgent(database: TestDatabase): Promise<{ agentId: string; engineDb: pg.Client }> {
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const row = { agentId: agent.id, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeLlmEngineConfig(row));
  const credentials = await engineCredentialsFor(database, agent.id);
  return { agentId: agent.id, engineDb: await database.connectClient({ url: credentials.DATABASE_URL }) };
}
