// The run queue's locks against another tenant: an engine role of another agent, logged in as itself
// with its own credentials, holds every advisory key it can compute for the victim's thread and caller
// (the keys the engine once locked) and tries the victim's lock rows, while the victim's engine role
// enqueues. The enqueue must never wait for the attacker; and the lock rows stay bounded per agent.
import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  issueTestEngineCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { ThreadCaller } from '../threads/thread-scope.js';
import { enqueueRun, type QueuedRun } from './run-control-records.js';

const INSUFFICIENT_PRIVILEGE = '42501';
const CAPS = { perThread: 1000, perSubject: 1000 };
const STALLED = 'stalled by the attacker';

let database: TestDatabase;
let victimId: string;
let victimPool: pg.Pool;
let attacker: pg.Client;
let attackerPid: number;

beforeAll(async () => {
  database = await createTestDatabase();
  const [victimWorkspace, attackerWorkspace] = [
    await makeWorkspace(database.prisma),
    await makeWorkspace(database.prisma),
  ];
  victimId = (await makeAgent(database.prisma, victimWorkspace.id)).id;
  const attackerId = (await makeAgent(database.prisma, attackerWorkspace.id)).id;
  const victim = await issueTestEngineCredentials(database, victimId);
  victimPool = database.createPool({ url: victim.DATABASE_URL, max: 2 });
  attacker = await database.connectClient({
    url: (await issueTestEngineCredentials(database, attackerId)).DATABASE_URL,
  });
  attackerPid = (await attacker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
});

afterAll(async () => {
  await database?.drop();
});

function queued(threadKey: string, caller: ThreadCaller | undefined): QueuedRun {
  return {
    agentId: victimId,
    runId: `run-${randomUUID()}`,
    threadId: threadKey,
    threadKey,
    caller,
    source: 'background',
    input: { ...makeRunAgentInput('hi'), threadId: threadKey },
  };
}

async function isBlockingSomeone(): Promise<boolean> {
  const rows = await database.prisma.$queryRaw<unknown[]>`
    SELECT 1 FROM pg_stat_activity WHERE ${attackerPid}::int = ANY(pg_blocking_pids(pid))`;
  return rows.length > 0;
}

/**
 * The victim's enqueue's outcome, or STALLED as soon as it waits for a lock the attacker holds; then
 * `release` lets it finish, so that nothing is left in flight.
 */
async function enqueueUnlessStalled(run: QueuedRun, release: () => Promise<unknown>) {
  let settled = false;
  const enqueued = enqueueRun(victimPool, run, 'enqueue', CAPS).finally(() => {
    settled = true;
  });
  const stalled = waitUntil(async () => settled || (await isBlockingSomeone()), {
    what: "the victim's enqueue to end, or to wait for the attacker",
  });
  const first = await Promise.race([enqueued.then((refused) => ({ refused })), stalled.then(() => STALLED)]);
  await stalled;
  if (first === STALLED) {
    await release();
    await enqueued;
  }
  return first;
}

const pendingOn = (threadKey: string) =>
  database.prisma.agentRun.count({ where: { agentId: victimId, threadKey, status: 'pending' } });

describe("another tenant's engine role against the victim's run queue", () => {
  const caller = { issuer: 'https://issuer.test', subject: 'ada' };
  const holds = {
    "the victim's thread": (threadKey: string) =>
      attacker.query(`SELECT pg_advisory_lock(hashtextextended($1 || '/' || $2, 0))`, [victimId, threadKey]),
    "the victim's caller": () =>
      attacker.query(`SELECT pg_advisory_lock(hashtextextended('pending/' || $1 || '/' || $2 || '/' || $3, 0))`, [
        victimId,
        caller.issuer,
        caller.subject,
      ]),
    // Without auth, every caller of an agent counts as one: a key anyone who knows the agent's id computes.
    'every caller of an engine without auth': () =>
      attacker.query(`SELECT pg_advisory_lock(hashtextextended('pending/' || $1 || '//', 0))`, [victimId]),
  };

  it.each(Object.keys(holds) as (keyof typeof holds)[])(
    'holding the advisory key of %s does not stall its enqueue',
    async (held) => {
      const threadKey = `key-${randomUUID()}`;
      await holds[held](threadKey);
      const release = () => attacker.query('SELECT pg_advisory_unlock_all()');
      try {
        const run = queued(threadKey, held === 'every caller of an engine without auth' ? undefined : caller);
        expect(await enqueueUnlessStalled(run, release)).toEqual({ refused: undefined });
        expect(await pendingOn(threadKey)).toBe(1);
      } finally {
        await release();
      }
    },
  );

  it("can neither take nor hold the victim's lock rows, nor lock their table against it", async () => {
    const threadKey = `key-${randomUUID()}`;
    // The victim's rows exist once it has enqueued.
    expect(await enqueueRun(victimPool, queued(threadKey, caller), 'enqueue', CAPS)).toBeUndefined();
    const [victimRow] = await database.prisma.runQueueLock.findMany({ where: { agentId: victimId, scope: 'thread' } });
    expect(victimRow).toBeDefined();

    const codeOf = (sql: string, values: unknown[] = []) =>
      attacker.query(sql, values).then(
        () => undefined,
        (error: { code?: string }) => error.code,
      );
    for (const mode of ['SHARE', 'SHARE ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE']) {
      expect(await codeOf('BEGIN')).toBeUndefined();
      expect(await codeOf(`LOCK TABLE run_queue_locks IN ${mode} MODE`)).toBe(INSUFFICIENT_PRIVILEGE);
      await attacker.query('ROLLBACK');
    }
    expect(
      await codeOf(
        `INSERT INTO run_queue_locks (agent_id, scope, slot) VALUES ($1, $2, $3)
         ON CONFLICT (agent_id, scope, slot) DO UPDATE SET taken_at = now()`,
        [victimId, victimRow?.scope, victimRow?.slot],
      ),
    ).toBe(INSUFFICIENT_PRIVILEGE);

    // What it may do, it does in a transaction it keeps open while the victim enqueues again.
    await attacker.query('BEGIN');
    const release = () => attacker.query('ROLLBACK');
    try {
      await attacker.query('LOCK TABLE run_queue_locks IN ROW EXCLUSIVE MODE');
      expect((await attacker.query('SELECT agent_id FROM run_queue_locks FOR UPDATE')).rows).toEqual([]);
      expect((await attacker.query('UPDATE run_queue_locks SET taken_at = now()')).rowCount).toBe(0);
      expect(await enqueueUnlessStalled(queued(threadKey, caller), release)).toEqual({ refused: undefined });
      expect(await pendingOn(threadKey)).toBe(2);
    } finally {
      await release();
    }
  });
});

describe("the victim's lock rows", () => {
  it('stay within 256 per scope however many threads and callers enqueue', async () => {
    const keys = Array.from({ length: 300 }, () => `key-${randomUUID()}`);
    for (const threadKey of keys) {
      const caller = { issuer: 'https://issuer.test', subject: threadKey };
      expect(await enqueueRun(victimPool, queued(threadKey, caller), 'enqueue', CAPS)).toBeUndefined();
    }
    const rows = await database.prisma.runQueueLock.groupBy({
      by: ['scope'],
      where: { agentId: victimId },
      _count: true,
      orderBy: { scope: 'asc' },
    });
    expect(rows.map((row) => row.scope)).toEqual(['caller', 'thread']);
    for (const row of rows) expect(row._count).toBeLessThanOrEqual(256);
  });
});
