// The engine lock watchdog against an engine role that turns its own timeouts off: logged in as the
// agent's role with its own credentials, it holds a table lock, or a row lock idle in a transaction, or
// one endless statement, while the manager's write or DDL waits on it. The watchdog ends that session
// and the wait ends; ordinary engine sessions and the manager's own are left alone.
import { randomBytes } from 'node:crypto';
import { createPrisma, engineRoleName, poolRoleName } from '@agentplane/db';
import {
  createTestDatabase,
  issueTestEngineCredentials,
  issueTestPoolCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import {
  type EngineLockWatchdogSettings,
  MISSING_SIGNAL_BACKEND,
  startEngineLockWatchdog,
  terminateRunawayEngineSessions,
} from './engine-lock-watchdog.js';

const ROOMY = 60_000;
const INTERVAL_MS = 50;
// Bounds the wait for the victim: without the watchdog it would wait for as long as the attacker likes.
const VICTIM_WAIT_MS = 10_000;

let database: TestDatabase;
let attackerId: string;
let attackerUrl: string;
let bystanderUrl: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  attackerId = (await makeAgent(database.prisma, workspace.id)).id;
  const bystanderId = (await makeAgent(database.prisma, (await makeWorkspace(database.prisma)).id)).id;
  attackerUrl = (await issueTestEngineCredentials(database, attackerId)).DATABASE_URL;
  bystanderUrl = (await issueTestEngineCredentials(database, bystanderId)).DATABASE_URL;
});

afterAll(async () => {
  await database?.drop();
});

type LogLine = { msg: string; agentId?: string; role?: string; reason?: string; pid?: number };

function captureLogger() {
  const lines: LogLine[] = [];
  const logger = createLogger({ name: 'test', destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

async function pidOf(client: pg.Client): Promise<number> {
  return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
}

async function blockersOf(pid: number): Promise<number[]> {
  const [row] = await database.prisma.$queryRawUnsafe<{ pids: number[] }[]>(
    'SELECT pg_blocking_pids($1::int) AS pids',
    pid,
  );
  return row?.pids ?? [];
}

async function isAlive(pid: number): Promise<boolean> {
  const rows = await database.prisma.$queryRawUnsafe<unknown[]>('SELECT 1 FROM pg_stat_activity WHERE pid = $1', pid);
  return rows.length > 0;
}

/** An engine session of the attacker's role that has turned both of its role's timeouts off. */
async function connectAttacker(): Promise<{ client: pg.Client; pid: number }> {
  const client = await database.connectClient({ url: attackerUrl });
  await client.query('SET statement_timeout = 0');
  await client.query('SET idle_in_transaction_session_timeout = 0');
  return { client, pid: await pidOf(client) };
}

/** Runs `sql` on a manager-side session and returns once it is seen waiting on `blockerPid`. */
async function runBlockedBy(
  blockerPid: number,
  sql: string,
): Promise<{ done: () => boolean; result: Promise<unknown> }> {
  const victim = await database.connectClient();
  const victimPid = await pidOf(victim);
  let settled = false;
  const result = victim.query(sql).finally(() => {
    settled = true;
  });
  await waitUntil(async () => (await blockersOf(victimPid)).includes(blockerPid), {
    what: 'the victim waiting on the blocker',
  });
  return { done: () => settled, result };
}

function settings(overrides: Partial<EngineLockWatchdogSettings> & Partial<EngineLockWatchdogSettings['roles']>) {
  return {
    intervalMs: INTERVAL_MS,
    blockingGraceMs: overrides.blockingGraceMs ?? ROOMY,
    roles: {
      statementTimeoutMs: overrides.statementTimeoutMs ?? ROOMY,
      idleInTransactionTimeoutMs: overrides.idleInTransactionTimeoutMs ?? ROOMY,
    },
  };
}

describe('the engine lock watchdog', () => {
  it('terminates an engine session that holds ACCESS EXCLUSIVE on agent_runs with its timeouts off, and the write waiting on it proceeds', async () => {
    const attacker = await connectAttacker();
    await attacker.client.query('BEGIN');
    await attacker.client.query('LOCK TABLE agent_runs IN ACCESS EXCLUSIVE MODE');
    const write = await runBlockedBy(attacker.pid, `DELETE FROM agent_runs WHERE agent_id = '${attackerId}'`);
    const { logger, lines } = captureLogger();
    const watchdog = await startEngineLockWatchdog(database.prisma, settings({ blockingGraceMs: 200 }), logger);
    try {
      await waitUntil(write.done, { what: "the manager's write on agent_runs", timeoutMs: VICTIM_WAIT_MS });
    } finally {
      await watchdog.stop();
    }
    await expect(write.result).resolves.toBeDefined();
    expect(await isAlive(attacker.pid)).toBe(false);
    expect(lines).toContainEqual(
      expect.objectContaining({
        agentId: attackerId,
        role: engineRoleName(attackerId),
        pid: attacker.pid,
        reason: 'blocking',
        msg: expect.stringMatching(/^terminated an engine session: .*ENGINE_DB_BLOCKING_GRACE_MS/),
      }),
    );
  });

  it("terminates an engine session idle in a transaction that holds a row lock, and a migration's CREATE INDEX proceeds", async () => {
    const attacker = await connectAttacker();
    await attacker.client.query('BEGIN');
    await attacker.client.query(
      "INSERT INTO conversation_threads (agent_id, external_key) VALUES (engine_agent_id(), 'held')",
    );
    const ddl = await runBlockedBy(
      attacker.pid,
      'CREATE INDEX conversation_threads_watchdog_test ON conversation_threads (created_at)',
    );
    const { logger, lines } = captureLogger();
    const watchdog = await startEngineLockWatchdog(
      database.prisma,
      settings({ idleInTransactionTimeoutMs: 200 }),
      logger,
    );
    try {
      await waitUntil(ddl.done, { what: 'the CREATE INDEX on conversation_threads', timeoutMs: VICTIM_WAIT_MS });
    } finally {
      await watchdog.stop();
    }
    await expect(ddl.result).resolves.toBeDefined();
    expect(lines).toContainEqual(
      expect.objectContaining({ agentId: attackerId, pid: attacker.pid, reason: 'idle_in_transaction' }),
    );
    const held = await database.prisma.$queryRawUnsafe<unknown[]>(
      "SELECT 1 FROM conversation_threads WHERE external_key = 'held'",
    );
    expect(held).toEqual([]);
  });

  it('terminates an engine statement that runs past the statement timeout its session turned off', async () => {
    const attacker = await connectAttacker();
    const sleeping = attacker.client.query('SELECT pg_sleep(600)');
    const ended = sleeping.then(
      () => 'finished',
      (error: { code?: string }) => error.code ?? 'no code',
    );
    let settled = false;
    void ended.then(() => {
      settled = true;
    });
    const { logger, lines } = captureLogger();
    const watchdog = await startEngineLockWatchdog(database.prisma, settings({ statementTimeoutMs: 200 }), logger);
    try {
      await waitUntil(() => settled, { what: "the attacker's statement to end", timeoutMs: VICTIM_WAIT_MS });
    } finally {
      await watchdog.stop();
    }
    expect(await ended).toBe('57P01'); // admin_shutdown: terminated, not cancelled
    expect(lines).toContainEqual(expect.objectContaining({ agentId: attackerId, reason: 'statement' }));
  });

  it("terminates a pool engine's session that holds a table lock as one of its agents, with its timeouts off", async () => {
    const pool = `w_${randomBytes(5).toString('hex')}`;
    const { DATABASE_URL } = await issueTestPoolCredentials(database, pool, [attackerId]);
    const client = await database.connectClient({ url: DATABASE_URL });
    await client.query('SET statement_timeout = 0');
    await client.query('SET idle_in_transaction_session_timeout = 0');
    const pid = await pidOf(client);
    await client.query(`BEGIN; SET LOCAL ROLE ${engineRoleName(attackerId)}`);
    await client.query('LOCK TABLE agent_runs IN ACCESS EXCLUSIVE MODE');
    const write = await runBlockedBy(pid, `DELETE FROM agent_runs WHERE agent_id = '${attackerId}'`);
    const { logger, lines } = captureLogger();
    const watchdog = await startEngineLockWatchdog(database.prisma, settings({ blockingGraceMs: 200 }), logger);
    try {
      await waitUntil(write.done, { what: "the manager's write on agent_runs", timeoutMs: VICTIM_WAIT_MS });
    } finally {
      await watchdog.stop();
    }
    await expect(write.result).resolves.toBeDefined();
    expect(await isAlive(pid)).toBe(false);
    expect(lines).toContainEqual(expect.objectContaining({ role: poolRoleName(pool), pid, reason: 'blocking' }));
  });

  it("leaves alone engine sessions in short transactions or idle outside one, and the manager's own sessions", async () => {
    const engine = await database.connectClient({ url: bystanderUrl });
    const enginePid = await pidOf(engine);
    await engine.query('BEGIN');
    await engine.query('SELECT count(*) FROM agent_runs');
    await engine.query('COMMIT');
    // The manager's own long transaction, blocking a waiter: not an engine's, so never the watchdog's.
    const manager = await database.connectClient();
    const managerPid = await pidOf(manager);
    await manager.query('BEGIN');
    await manager.query('LOCK TABLE budget_spend IN SHARE MODE');
    const waiter = await runBlockedBy(managerPid, 'DELETE FROM budget_spend WHERE false');
    const tight = settings({ blockingGraceMs: 100, statementTimeoutMs: 100, idleInTransactionTimeoutMs: 100 });
    const pastEveryLimit = async () => {
      const rows = await database.prisma.$queryRawUnsafe<{ ok: boolean }[]>(
        `SELECT bool_and(state_change < now() - interval '500 ms') AS ok FROM pg_stat_activity WHERE pid = ANY($1::int[])`,
        [enginePid, managerPid],
      );
      return rows[0]?.ok === true;
    };
    await waitUntil(pastEveryLimit, { what: 'both sessions idle past every limit' });

    expect(await terminateRunawayEngineSessions(database.prisma, tight)).toEqual([]);
    expect(await isAlive(enginePid)).toBe(true);
    expect((await engine.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await manager.query('COMMIT');
    await expect(waiter.result).resolves.toBeDefined();
  });

  it('warns at start, naming the grant, when its database user may not terminate other sessions', async () => {
    const unprivileged = createPrisma(attackerUrl, { maxConnections: 1 });
    const { logger, lines } = captureLogger();
    try {
      const watchdog = await startEngineLockWatchdog(unprivileged, settings({}), logger);
      await watchdog.stop();
    } finally {
      await unprivileged.$disconnect();
    }
    expect(lines.map((line) => line.msg)).toEqual([MISSING_SIGNAL_BACKEND]);
    expect(MISSING_SIGNAL_BACKEND).toMatch(/GRANT pg_signal_backend TO/);

    const privileged = captureLogger();
    await (await startEngineLockWatchdog(database.prisma, settings({}), privileged.logger)).stop();
    expect(privileged.lines).toEqual([]);
  });
});
