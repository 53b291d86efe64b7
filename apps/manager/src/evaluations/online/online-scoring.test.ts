// Online scoring from a run's end to its scores: runs written as an engine writes them (as the database
// owner here; a real engine's runs are scored in online-scoring-engine.test.ts), the trigger's sampling,
// the bounded queue, the worker grading with a deterministic scorer and a model judge on a fake
// OpenAI-compatible server, a worker that stops mid-queue, and the scores in the runs list and usage.
import { createHash, randomUUID } from 'node:crypto';
import { type TAgentRun, type TOnlineScoringUpdateInput, ZAgentRun, ZAgentUsage } from '@agentplane/contracts';
import { createSecretBox, ENGINE_GROUP_ROLE } from '@agentplane/db';
import { createEgressPolicy, createLogger, LOOPBACK_EGRESS_ALLOW, ZEgressAllowList } from '@agentplane/server-kit';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../../testing/manager-test-app.js';
import { createAgentThroughApi } from '../../testing/resource-fixtures.js';
import { gradeRun } from './grade-run.js';
import type { OnlineScoringWorker } from './online-scoring-worker.js';
import {
  claimQueuedRuns,
  dropExhaustedRuns,
  finishQueuedRun,
  MAX_SCORING_ATTEMPTS,
  pruneRunScores,
} from './scoring-queue.js';
import { startOnlineScoring } from './start-online-scoring.js';

const logger = createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const KEY = 'sk-judge-key-0123456789abcdef';
let ctx: ManagerTestContext;
let owner: SignedInUser;
let judge: FakeOpenAiServer;
const workers: OnlineScoringWorker[] = [];

beforeAll(async () => {
  ctx = await startManagerTestApp({ ONLINE_SCORING_POLL_MS: '20', ONLINE_SCORING_MAX_QUEUED_PER_AGENT: '3' });
  owner = await signUpUser(ctx.app);
  judge = await startFakeOpenAiServer();
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await judge?.close();
  await ctx?.close();
});

const db = () => ctx.database.prisma;

async function startWorker(owner?: string): Promise<OnlineScoringWorker> {
  const worker = await startOnlineScoring({ db: db(), config: ctx.config, logger, ...(owner ? { owner } : {}) });
  workers.push(worker);
  return worker;
}

/** The trigger's draw, computed here as the migration does: the run is sampled when it is under the rate. */
function drawOf(agentId: string, runId: string): number {
  return Number.parseInt(createHash('md5').update(`${agentId}:${runId}`).digest('hex').slice(0, 8), 16) / 2 ** 32;
}

const CONTAINS = { name: 'polite', kind: 'contains' as const, texts: ['thanks'] };
const judgeScorer = () =>
  ({
    name: 'helpful',
    kind: 'model_judge',
    rubric: 'The reply helps.',
    model: { provider: 'openai', name: 'judge-1', baseUrl: judge.baseUrl, apiKey: KEY },
  }) as const;

async function configure(agentId: string, body: Partial<TOnlineScoringUpdateInput>) {
  const response = await owner.agent
    .put(`/api/v1/agents/${agentId}/online-scoring`)
    .send({ enabled: true, sample_rate: 1, scorers: [CONTAINS], ...body });
  expect(response.status).toBe(200);
  return response.body;
}

type RunSeed = { id?: string; source?: string; status?: 'succeeded' | 'failed' | 'cancelled'; reply?: string };

/** A run as an engine records it: inserted running with its input, its events appended, then ended. */
async function endRun(agentId: string, seed: RunSeed = {}): Promise<string> {
  const id = seed.id ?? `run-${randomUUID()}`;
  const input = { threadId: 't', runId: id, messages: [{ id: 'm1', role: 'user', content: 'Hello?' }] };
  await db().$executeRaw`
    INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, source, status, input, started_at, usage)
    VALUES (${id}, ${agentId}::uuid, ${id}, ${`agui:${id}`}, ${seed.source ?? 'stream'}::"RunSource", 'running',
      ${JSON.stringify(input)}::jsonb, now() - interval '1500 milliseconds',
      ${JSON.stringify({ input_tokens: 10, output_tokens: 4 })}::jsonb)`;
  const events = [
    { type: 'RUN_STARTED' },
    { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: seed.reply ?? 'Hi, ' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: seed.reply === undefined ? 'thanks!' : '' },
    { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
    { type: 'RUN_FINISHED' },
  ];
  for (const [index, event] of events.entries()) {
    await db().$executeRaw`
      INSERT INTO run_events (agent_id, run_id, seq, data) VALUES (${agentId}::uuid, ${id}, ${index + 1}, ${JSON.stringify(event)})`;
  }
  await db().$executeRaw`
    UPDATE agent_runs SET status = ${seed.status ?? 'succeeded'}::"RunStatus", finished_at = started_at + interval '1500 milliseconds'
    WHERE agent_id = ${agentId}::uuid AND id = ${id}`;
  return id;
}

const queuedRuns = async (agentId: string) =>
  (await db().onlineScoringQueue.findMany({ where: { agentId }, select: { runId: true } })).map((row) => row.runId);

const scoresOf = (agentId: string, runId?: string) =>
  db().runScore.findMany({
    where: { agentId, ...(runId === undefined ? {} : { runId }) },
    orderBy: [{ runId: 'asc' }, { scorerName: 'asc' }],
  });

describe('sampling', () => {
  it('never queues a run at rate 0, always at rate 1, and by the run id’s draw in between', async () => {
    const agent = await createAgentThroughApi(owner);
    await configure(agent.id, { sample_rate: 0 });
    const unsampled = await Promise.all([1, 2, 3].map(() => endRun(agent.id)));
    expect(await queuedRuns(agent.id)).toEqual([]);

    await configure(agent.id, { sample_rate: 0.5 });
    // Past this suite's cap of 3, so that every sampled run of the twelve is queued.
    await db().onlineScoringSettings.update({ where: { agentId: agent.id }, data: { maxQueued: 100 } });
    const ids = Array.from({ length: 12 }, (_, index) => `half-${index}`);
    for (const id of ids) await endRun(agent.id, { id });
    // Exactly the runs whose draw, computed here from the ids alone, falls under the rate.
    const expected = ids.filter((id) => drawOf(agent.id, id) < 0.5);
    expect((await queuedRuns(agent.id)).sort()).toEqual(expected.sort());

    await db().onlineScoringQueue.deleteMany({ where: { agentId: agent.id } });
    await configure(agent.id, { sample_rate: 1 });
    const sampled = await Promise.all([1, 2].map(() => endRun(agent.id)));
    expect((await queuedRuns(agent.id)).sort()).toEqual([...sampled].sort());
    expect(await queuedRuns(agent.id)).not.toEqual(expect.arrayContaining(unsampled));
  });

  it('never queues an experiment run, nor a source left out, nor a cancelled run, nor when disabled', async () => {
    const agent = await createAgentThroughApi(owner);
    await configure(agent.id, { sources: ['schedule', 'stream'] });
    await endRun(agent.id, { source: 'experiment' });
    await endRun(agent.id, { source: 'whatsapp' });
    await endRun(agent.id, { status: 'cancelled' });
    expect(await queuedRuns(agent.id)).toEqual([]);
    const failed = await endRun(agent.id, { status: 'failed' });
    expect(await queuedRuns(agent.id)).toEqual([failed]);
    await configure(agent.id, { enabled: false });
    await endRun(agent.id);
    expect(await queuedRuns(agent.id)).toEqual([failed]);
  });

  it('holds at most the operator’s cap of runs per agent, counting the rest as dropped', async () => {
    const agent = await createAgentThroughApi(owner);
    await configure(agent.id, {});
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push(await endRun(agent.id));
    expect((await queuedRuns(agent.id)).sort()).toEqual(ids.slice(0, 3).sort());
    const read = await owner.agent.get(`/api/v1/agents/${agent.id}/online-scoring`);
    expect(read.body).toMatchObject({ queued_runs: 3, dropped_runs: 2, last_dropped_at: expect.any(String) });
  });

  it('gives engine roles no privilege on the settings, the queue or the scores', async () => {
    const [row] = await db().$queryRaw<Record<string, boolean>[]>`
      SELECT has_table_privilege(${ENGINE_GROUP_ROLE}, 'online_scoring_settings', 'SELECT') AS settings,
        has_table_privilege(${ENGINE_GROUP_ROLE}, 'online_scoring_queue', 'SELECT,INSERT') AS queue,
        has_table_privilege(${ENGINE_GROUP_ROLE}, 'run_scores', 'SELECT,INSERT') AS scores,
        has_function_privilege(${ENGINE_GROUP_ROLE}, 'online_scoring_run_ended()', 'EXECUTE') AS enqueue`;
    expect(row).toEqual({ settings: false, queue: false, scores: false, enqueue: false });
  });
});

describe('the worker', () => {
  it('grades each sampled run once, a judge failure giving no score, and the scores show in the runs list and usage', async () => {
    const agent = await createAgentThroughApi(owner);
    await configure(agent.id, { scorers: [CONTAINS, judgeScorer()] });
    judge.script(
      { text: ['{"score": 5, "reason": "Helpful."}'], usage: { prompt_tokens: 50, completion_tokens: 5 } },
      { status: 500, message: 'judge down' },
    );
    const before = judge.requests.length;
    const good = await endRun(agent.id, { id: 'a-good' });
    const worker = await startWorker();
    await waitUntil(async () => (await scoresOf(agent.id, good)).length === 2, { what: 'the first run scored' });
    const terse = await endRun(agent.id, { id: 'b-terse', reply: 'No.' });
    await waitUntil(async () => (await scoresOf(agent.id, terse)).length === 2, { what: 'the second run scored' });
    await worker.stop();

    expect(judge.requests.length - before).toBe(2);
    expect(JSON.parse(String(judge.requests[before]?.body.messages[1]?.content))).toEqual({
      conversation: [{ role: 'user', content: 'Hello?' }],
      reply: 'Hi, thanks!',
    });
    expect(judge.requests[before]?.authorization).toBe(`Bearer ${KEY}`);
    expect((await scoresOf(agent.id)).map(({ runId, scorerName, score }) => [runId, scorerName, score])).toEqual([
      ['a-good', 'helpful', 1],
      ['a-good', 'polite', 1],
      ['b-terse', 'helpful', null],
      ['b-terse', 'polite', 0],
    ]);
    expect(await queuedRuns(agent.id)).toEqual([]);

    const listed = await owner.agent.get(`/api/v1/agents/${agent.id}/runs`);
    const runs = z.array(ZAgentRun).parse(listed.body);
    const byId = new Map<string, TAgentRun>(runs.map((run) => [run.id, run]));
    expect(byId.get('a-good')?.scores).toEqual([
      { name: 'helpful', kind: 'model_judge', score: 1, reason: '5/5: Helpful.' },
      { name: 'polite', kind: 'contains', score: 1, reason: expect.any(String) },
    ]);
    expect(byId.get('b-terse')?.scores[0]).toMatchObject({ name: 'helpful', score: null });
    expect(byId.get('b-terse')?.scores[0]?.reason).toMatch(/judge/i);

    const usage = ZAgentUsage.parse(
      (await owner.agent.get(`/api/v1/agents/${agent.id}/usage?bucket=hour&group_by=version`)).body,
    );
    expect(usage.scores).toEqual([
      { name: 'helpful', mean: 1, n: 1, null_count: 1 },
      { name: 'polite', mean: 0.5, n: 2, null_count: 0 },
    ]);
    expect(usage.buckets.flatMap((bucket) => bucket.scores)).toEqual(usage.scores);
    expect(usage.versions?.[0]?.scores).toEqual(usage.scores);
  });

  it('leaves the rest of the queue to another manager when one stops, and a run is stored once even when two graded it', async () => {
    const agent = await createAgentThroughApi(owner);
    await configure(agent.id, { scorers: [judgeScorer()] });
    const ids = [];
    for (let index = 0; index < 3; index += 1) ids.push(await endRun(agent.id, { id: `r-${index}` }));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answer = { text: ['{"score": 3, "reason": "Fine."}'] };
    judge.script({ gate, turn: answer }, answer, answer, answer);
    const before = judge.requests.length;

    // The first manager takes one run and is stuck on its judge; its lease then runs out, as a killed manager's would.
    const [claimed] = await claimQueuedRuns(db(), { owner: 'first', leaseMs: 60_000, limit: 1 });
    if (claimed === undefined) throw new Error('a run to claim');
    const egress = createEgressPolicy({
      allow: ZEgressAllowList.parse(LOOPBACK_EGRESS_ALLOW),
      onRefused: () => undefined,
    });
    const box = createSecretBox(ctx.config.secretsKey.current, ctx.config.secretsKey.previous);
    const late = gradeRun({ db: db(), box, egress, judgeTimeoutMs: 30_000 }, claimed.agentId, claimed.runId);
    await waitUntil(() => judge.requests.length === before + 1, { what: 'the first manager to call its judge' });
    await db().$executeRaw`
      UPDATE online_scoring_queue SET lease_expires_at = now() WHERE agent_id = ${agent.id}::uuid`;

    const second = await startWorker('second');
    await waitUntil(async () => (await queuedRuns(agent.id)).length === 0, { what: 'the second manager to drain' });
    await second.stop();
    release();
    const results = await late;
    expect(results).toMatchObject([{ name: 'helpful', score: 0.5 }]);
    expect(await finishQueuedRun(db(), { ...claimed, owner: 'first' }, results)).toBe(false);
    await egress.close();

    const scores = await scoresOf(agent.id);
    expect(scores.map((row) => row.runId)).toEqual(ids);
    expect(judge.requests.length - before).toBe(4);
  });

  it('deletes a run’s scores and its queue entry with the run', async () => {
    const agent = await createAgentThroughApi(owner);
    await configure(agent.id, {});
    const scored = await endRun(agent.id);
    const worker = await startWorker();
    await waitUntil(async () => (await scoresOf(agent.id, scored)).length === 1, { what: 'the run scored' });
    await worker.stop();
    const waiting = await endRun(agent.id);
    await db().agentRun.deleteMany({ where: { agentId: agent.id } });
    expect(await scoresOf(agent.id)).toEqual([]);
    expect(await queuedRuns(agent.id)).toEqual([]);
    expect(waiting).toBeDefined();
  });
});

// Last in the file: these sweeps cover every agent of the suite's database.
describe('the periodic sweeps', () => {
  it('keeps only the newest score rows of each agent, past ONLINE_SCORING_MAX_SCORES_PER_AGENT', async () => {
    const agents = [await createAgentThroughApi(owner), await createAgentThroughApi(owner)];
    for (const agent of agents) {
      for (const [age, runId] of ['old', 'middle', 'new'].entries()) {
        await endRun(agent.id, { id: runId });
        await db().$executeRaw`
          INSERT INTO run_scores (agent_id, run_id, scorer_name, kind, score, reason, created_at)
          VALUES (${agent.id}::uuid, ${runId}, 'polite', 'contains', 1, 'Found every text',
                  now() - ${3 - age} * interval '1 minute')`;
      }
    }
    expect(await pruneRunScores(db(), 2)).toBeGreaterThanOrEqual(2);
    for (const agent of agents) {
      expect((await scoresOf(agent.id)).map((row) => row.runId)).toEqual(['middle', 'new']);
    }
  });

  it('gives up on a run claimed MAX_SCORING_ATTEMPTS times once its last lease has run out', async () => {
    const agent = await createAgentThroughApi(owner);
    const rows: [string, number, string][] = [
      ['exhausted', MAX_SCORING_ATTEMPTS, '-1 minute'],
      ['exhausted-but-leased', MAX_SCORING_ATTEMPTS, '1 minute'],
      ['retried', MAX_SCORING_ATTEMPTS - 1, '-1 minute'],
    ];
    for (const [runId, attempts, lease] of rows) {
      await endRun(agent.id, { id: runId });
      await db().$executeRaw`
        INSERT INTO online_scoring_queue (agent_id, run_id, attempts, lease_owner, lease_expires_at)
        VALUES (${agent.id}::uuid, ${runId}, ${attempts}, 'gone', now() + ${lease}::interval)`;
    }
    expect(await dropExhaustedRuns(db())).toBe(1);
    expect((await queuedRuns(agent.id)).sort()).toEqual(['exhausted-but-leased', 'retried']);
  });
});
