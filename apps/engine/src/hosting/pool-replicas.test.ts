// Two replicas of one pool (two pool engines, one login) serve the same agents, and nothing is sticky:
// a run one replica runs is rejoined and cancelled through the other, whose news reach the replica
// running it through the database.
import { randomBytes } from 'node:crypto';
import { createTestDatabase, issueTestPoolCredentials, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import type { AgentRow } from '../testing/engine-config-rows.js';
import { frameType, readSseFrames } from '../testing/read-sse-frames.js';
import { AGENT_FIXTURES, makeSlowAgentRow } from '../testing/slow-agent-rows.js';
import { startTestEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let agent: AgentRow;
let replicaA: RunningEngine;
let replicaB: RunningEngine;

beforeAll(async () => {
  database = await createTestDatabase();
  agent = await makeSlowAgentRow(database.prisma, (await makeWorkspace(database.prisma)).id);
  const credentials = await issueTestPoolCredentials(database, `t_${randomBytes(6).toString('hex')}`, [agent.agentId]);
  const env = {
    ...credentials,
    ENGINE_AGENTS_DIR: AGENT_FIXTURES,
    // Leases renewed only every 200 s: the cancel has to reach replica A by its notification.
    ENGINE_RUN_LEASE_MS: '600000',
  };
  [replicaA, replicaB] = await Promise.all([startTestEngine(env), startTestEngine(env)]);
});

afterAll(async () => {
  await Promise.all([replicaA?.shutdown(), replicaB?.shutdown()]);
  await database?.drop();
});

const runsUrl = (replica: RunningEngine) => `${replica.url}/agents/${agent.agentId}/agent/runs`;
const runRow = (runId: string) =>
  database.prisma.agentRun.findUniqueOrThrow({ where: { agentId_id: { agentId: agent.agentId, id: runId } } });

describe('two replicas of a pool', () => {
  it('rejoin and cancel from replica B a background run that replica A runs, and A stops it', async () => {
    const input = makeRunAgentInput('100000 5');
    const queued = await fetch(runsUrl(replicaA), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    expect(queued.status).toBe(202);
    // B has had no request for the agent yet, so the agent is loaded on A only: A's queue claims it.
    await waitUntil(async () => (await runRow(input.runId)).lastSeq >= 5, { what: 'the run to go on replica A' });

    const followed = readSseFrames(await fetch(`${runsUrl(replicaB)}/${input.runId}/stream`));
    await waitUntil(async () => (await runRow(input.runId)).lastSeq >= 20, { what: 'the run to go on' });
    const cancelled = await fetch(`${runsUrl(replicaB)}/${input.runId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toMatchObject({ run_id: input.runId, status: 'running' });

    // Only the replica running a run ends it: `cancelled` is A's word that the run stopped.
    await waitUntil(async () => (await runRow(input.runId)).status === 'cancelled', {
      what: 'replica A to stop the run',
    });
    // B's stream followed the run live, to the RUN_ERROR A wrote as it stopped it.
    const frames = await followed;
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, i) => `${input.runId}:${i + 1}`));
    expect(frames.filter((frame) => frameType(frame) === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(15);
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({ type: 'RUN_ERROR', code: 'cancelled' });
    expect(await runRow(input.runId)).toMatchObject({ error: 'cancelled', lastSeq: frames.length });
  });
});
