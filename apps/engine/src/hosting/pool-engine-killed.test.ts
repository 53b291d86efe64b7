// Fault test, with two replicas of one pool as real processes: the first is SIGKILLed while it runs a run
// of each of two agents. A replica sweeps the runs of the agents it has loaded, so the survivor marks a
// lost run failed ("engine lost") once its lease runs out: at once for the agent a client follows there,
// and for the other as soon as a request for it (here, a rejoin) loads it. Either way the clients get
// RUN_ERROR as the run's last event instead of waiting forever.
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, issueTestPoolCredentials, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AgentRow } from '../testing/engine-config-rows.js';
import { type EngineProcess, startServingEngineProcess } from '../testing/engine-process.js';
import { frameType, readSseFrames, type SseFrame } from '../testing/read-sse-frames.js';
import { AGENT_FIXTURES, makeSlowAgentRow } from '../testing/slow-agent-rows.js';

jest.setTimeout(120_000);

let database: TestDatabase;
let followed: AgentRow;
let unfollowed: AgentRow;
let env: Record<string, string>;
const processes: EngineProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  followed = await makeSlowAgentRow(database.prisma, workspaceId);
  unfollowed = await makeSlowAgentRow(database.prisma, workspaceId);
  const pool = `t_${randomBytes(6).toString('hex')}`;
  env = {
    ...(await issueTestPoolCredentials(database, pool, [followed.agentId, unfollowed.agentId])),
    ENGINE_AGENTS_DIR: AGENT_FIXTURES,
    ENGINE_RUN_LEASE_MS: '1500',
  };
});

afterAll(async () => {
  for (const engine of processes) await engine.kill('SIGKILL');
  await database?.drop();
});

const base = (replica: EngineProcess, agent: AgentRow) => `${replica.url}/agents/${agent.agentId}`;
const runRow = (agent: AgentRow, runId: string) =>
  database.prisma.agentRun.findUniqueOrThrow({ where: { agentId_id: { agentId: agent.agentId, id: runId } } });
// Far more deltas than the test waits for: the runs are still going when their replica is killed.
const longRun = () => ({ ...makeRunAgentInput('100000 5'), runId: `run-${randomUUID()}` });

function expectEngineLost(frames: SseFrame[], runId: string, lastSeq: number) {
  expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, i) => `${runId}:${lastSeq - frames.length + i + 1}`));
  expect(frameType(frames.at(-1) as SseFrame)).toBe('RUN_ERROR');
  expect(JSON.parse(String(frames.at(-1)?.data))).toMatchObject({ code: 'engine_lost', message: 'engine lost' });
}

describe('a pool replica SIGKILLed in the middle of runs', () => {
  it('leaves its runs failed after their lease, swept by the replica that has their agent loaded', async () => {
    const [dying, surviving] = await Promise.all([
      startServingEngineProcess(env, processes),
      startServingEngineProcess(env, processes),
    ]);

    // A streamed run of one agent, followed through the surviving replica from where its client left:
    // that request loads the agent there.
    const streamed = longRun();
    const started = await fetch(`${base(dying, followed)}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...streamed, forwardedProps: { agentplane: { onDisconnect: 'continue' } } }),
    });
    const seen = await readSseFrames(started, (frames) => frames.length >= 5);
    const following = readSseFrames(
      await fetch(`${base(surviving, followed)}/agent/runs/${streamed.runId}/stream`, {
        headers: { 'Last-Event-ID': String(seen.at(-1)?.id) },
      }),
    );

    // A background run of the other agent, which no request names on the surviving replica before the kill.
    const background = longRun();
    const queued = await fetch(`${base(dying, unfollowed)}/agent/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(background),
    });
    expect(queued.status).toBe(202);
    await waitUntil(async () => (await runRow(unfollowed, background.runId)).lastSeq >= 5, {
      what: 'the background run to go',
    });
    await waitUntil(async () => (await runRow(followed, streamed.runId)).lastSeq >= 50, {
      what: 'the streamed run to store 50 events',
    });
    await dying.kill('SIGKILL');

    const rest = await following;
    const lostStream = await runRow(followed, streamed.runId);
    expect(lostStream).toMatchObject({ status: 'failed', error: 'engine lost' });
    expect(rest.length).toBeGreaterThan(40);
    expectEngineLost(rest, streamed.runId, lostStream.lastSeq);

    // No request names the other agent on the surviving replica: its poll sees a run whose lease ran
    // out (engine_placements' has_work), loads the agent, and sweeps the run.
    await waitUntil(async () => (await runRow(unfollowed, background.runId)).status === 'failed', {
      what: "the other agent's lost run to be swept with no request for it",
    });
    const rejoined = await readSseFrames(
      await fetch(`${base(surviving, unfollowed)}/agent/runs/${background.runId}/stream`),
    );
    const lostBackground = await runRow(unfollowed, background.runId);
    expect(lostBackground).toMatchObject({ status: 'failed', error: 'engine lost' });
    expectEngineLost(rejoined, background.runId, lostBackground.lastSeq);
    expect(rejoined).toHaveLength(lostBackground.lastSeq);
  });
});
