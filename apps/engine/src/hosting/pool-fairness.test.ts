// Fairness on a pool engine against a real PostgreSQL: the replica's run slots are shared by its agents,
// so one agent's backlog of queued runs does not hold back another agent's run until it drains.
import { randomBytes } from 'node:crypto';
import { createTestDatabase, issueTestPoolCredentials, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, sampleValue, scrapeMetrics, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import type { AgentRow } from '../testing/engine-config-rows.js';
import { AGENT_FIXTURES, makeSlowAgentRow } from '../testing/slow-agent-rows.js';
import { startTestEngine } from '../testing/test-engine.js';

// Two deltas 150 ms apart: each of A's runs holds its slot for a while, so its backlog drains slowly.
const SLOW = '2 150';
const BACKLOG = 200;
const SLOTS = 2;

let database: TestDatabase;
let engine: RunningEngine;
let a: AgentRow;
let b: AgentRow;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  a = await makeSlowAgentRow(database.prisma, workspaceId);
  b = await makeSlowAgentRow(database.prisma, workspaceId);
  const pool = `t_${randomBytes(6).toString('hex')}`;
  const credentials = await issueTestPoolCredentials(database, pool, [a.agentId, b.agentId]);
  engine = await startTestEngine({
    ...credentials,
    ENGINE_AGENTS_DIR: AGENT_FIXTURES,
    // The pool's slots are as many as one agent may hold: A alone can fill them, and B gets one only
    // if the pool hands it one when one of A's runs ends, instead of to A's next run.
    ENGINE_RUN_QUEUE_CONCURRENCY: String(SLOTS),
    ENGINE_POOL_AGENT_CONCURRENCY: String(SLOTS),
    ENGINE_PENDING_RUNS_PER_SUBJECT: String(BACKLOG + 10),
    METRICS_PORT: '0',
  });
});

afterAll(async () => {
  await engine?.shutdown();
  await database?.drop();
});

async function queueRun(agent: AgentRow): Promise<string> {
  const input = makeRunAgentInput(SLOW);
  const response = await fetch(`${engine.url}/agents/${agent.agentId}/agent/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  expect(response.status).toBe(202);
  return input.runId;
}

const statusOf = async (agent: AgentRow, runId: string) =>
  (await database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId: agent.agentId, id: runId } } }))?.status;
const pendingOf = (agent: AgentRow) =>
  database.prisma.agentRun.count({ where: { agentId: agent.agentId, status: 'pending' } });

describe('a pool engine with every slot taken by one agent', () => {
  it("starts agent B's run before agent A's backlog of 200 queued runs drains", async () => {
    for (let i = 0; i < BACKLOG; i++) await queueRun(a);
    // The replica says so too: every slot held, and A's queue waiting in line for the next.
    await waitUntil(
      async () => {
        const samples = await scrapeMetrics(engine.metricsUrl as string);
        return (
          sampleValue(samples, 'agentplane_run_slots_held') === SLOTS &&
          sampleValue(samples, 'agentplane_run_slots_waiting') === 1
        );
      },
      { what: "A's runs to hold every slot, and A to wait for more" },
    );
    const runOfB = await queueRun(b);

    // Until one or the other: were B's run to wait for A's backlog, this would end with A drained.
    await waitUntil(async () => (await statusOf(b, runOfB)) !== 'pending' || (await pendingOf(a)) === 0, {
      what: "B's run to start, or A's backlog to drain",
      timeoutMs: 120_000,
    });
    // Read after B's run was seen started: A's runs were waiting then, if they still are.
    expect(await pendingOf(a)).toBeGreaterThan(0);
    expect(await statusOf(b, runOfB)).not.toBe('pending');
  }, 180_000);
});
