// Experiments through the HTTP API on a real database, the worker driven pass by pass and the runs ended
// by a stand-in engine (experiment-engine.test.ts runs a real one): a launch and what it writes, the
// reads (results, aggregates, comparison, export), cancel and delete, and their races with the worker.
// Refused: bad bodies, unknown or foreign ids, viewers' writes, no session, the operator's limits.
import {
  SECRET_MASK_BULLETS,
  ZExperiment,
  ZExperimentComparison,
  ZExperimentDetail,
  ZExperimentResult,
} from '@agentplane/contracts';
import { ENGINE_GROUP_ROLE } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import {
  createDataset,
  createVersionedAgent,
  EXACT_AND_CONTAINS,
  endPendingRuns,
  launch,
  mockReply,
  workerDependencies,
} from './experiment-test-kit.js';
import { runExperimentPass } from './experiment-worker.js';

const MAX_RUNS = 40;
const MAX_ACTIVE = 6;
const KEPT = 4;
const ISSUER = 'http://manager.test';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let member: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;
let agentId: string;
let dataset: { id: string; itemIds: string[] };

const ITEMS = [
  { question: 'apple pie', reply: mockReply('apple pie') },
  { question: 'pear tart', reply: 'something else' },
  { question: 'apple cake' },
];

beforeAll(async () => {
  ctx = await startManagerTestApp({
    EXPERIMENT_MAX_RUNS: String(MAX_RUNS),
    EXPERIMENT_MAX_CONCURRENCY: '8',
    MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE: String(MAX_ACTIVE),
    EXPERIMENTS_KEPT_PER_AGENT: String(KEPT),
  });
  [owner, member, viewer, stranger] = await Promise.all([
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
  ]);
  await addToWorkspace(owner, member, 'member');
  await addToWorkspace(owner, viewer, 'viewer');
  agentId = await createVersionedAgent(owner, [undefined, 'Be brief.']);
  dataset = await createDataset(owner, ITEMS);
});
afterAll(async () => {
  await ctx?.close();
});

const IN_OWNERS = () => ({ 'x-workspace-id': owner.workspaceId });
const base = () => `/api/v1/agents/${agentId}/experiments`;
const body = (overrides: Record<string, unknown> = {}) => ({
  dataset: dataset.id,
  agent_versions: [1, 2],
  scorers: EXACT_AND_CONTAINS,
  ...overrides,
});

const pass = (owner = 'test-worker') => runExperimentPass(workerDependencies(ctx), owner, ISSUER);

/** Drives the experiment to its end: worker passes, the stand-in engine answering as the mock model. */
async function runToEnd(experimentId: string): Promise<void> {
  for (let round = 0; round < 50; round++) {
    await pass();
    const row = await ctx.database.prisma.experiment.findUniqueOrThrow({ where: { id: experimentId } });
    if (!['running', 'cancelling'].includes(row.status)) return;
    await endPendingRuns(ctx.database.prisma, agentId, ({ question }) => ({
      status: 'succeeded',
      reply: mockReply(question),
    }));
  }
  throw new Error('the experiment did not end in 50 rounds');
}

async function cancelAll(): Promise<void> {
  const active = await ctx.database.prisma.experiment.findMany({ where: { status: 'running' } });
  for (const row of active) {
    await member.agent.post(`/api/v1/agents/${row.agentId}/experiments/${row.id}/cancel`).set(IN_OWNERS());
  }
  for (const row of active) await runToEnd(row.id);
}

describe('launching an experiment', () => {
  it('writes it, its pending results and the pinned configs of its versions; the worker queues pinned runs', async () => {
    const experiment = await launch(
      member,
      agentId,
      body({ repeats: 2, concurrency: 3, name: 'Brief or not' }),
      owner.workspaceId,
    );
    expect(experiment).toMatchObject({
      name: 'Brief or not',
      agent_id: agentId,
      dataset_id: dataset.id,
      dataset_version: 2,
      agent_versions: [1, 2],
      repeats: 2,
      concurrency: 3,
      status: 'running',
      created_by: member.userId,
      item_count: 3,
      run_count: 12,
      progress: { pending: 12, queued: 0, scored: 0, failed: 0, cancelled: 0 },
      started_at: null,
    });
    const pinned = await ctx.database.prisma.pinnedEngineConfig.findMany({
      where: { agentId },
      orderBy: { version: 'asc' },
    });
    expect(pinned.map((row) => Number(row.version))).toEqual([1, 2]);
    expect(pinned[1]?.config).toMatchObject({ agent: { config: { instructions: 'Be brief.' } } });

    await pass();
    const runs = await ctx.database.prisma.agentRun.findMany({ where: { agentId, source: 'experiment' } });
    expect(runs).toHaveLength(3);
    // The first item on version 1 (two repeats), then on version 2: the dataset's order.
    expect(runs.map((run) => run.id).sort()).toEqual(
      [
        `experiment:${experiment.id}:${dataset.itemIds[0]}:1:0`,
        `experiment:${experiment.id}:${dataset.itemIds[0]}:1:1`,
        `experiment:${experiment.id}:${dataset.itemIds[0]}:2:0`,
      ].sort(),
    );
    for (const run of runs) {
      expect(run).toMatchObject({
        status: 'pending',
        issuer: ISSUER,
        subject: `experiment:${experiment.id}`,
        threadId: run.id,
      });
      expect(Number(run.pinnedVersion)).toBe(Number(run.id.split(':')[3]));
    }
    await runToEnd(experiment.id);
    const detail = ZExperimentDetail.parse((await owner.agent.get(`${base()}/${experiment.id}`)).body);
    expect(detail).toMatchObject({ status: 'completed', progress: { scored: 12, pending: 0, queued: 0 } });
    expect(detail.started_at).not.toBeNull();
    // Both versions echo: exact matches item 1 only, "apple" items 1 and 3.
    for (const aggregate of detail.aggregates) {
      const seen = aggregate.scorers.map(({ name, mean, n, null_count, distribution }) => ({
        name,
        mean,
        n,
        null_count,
        distribution,
      }));
      expect(seen).toEqual([
        // Item 1 matches, item 2 does not, item 3 expects nothing: its scores are null, in no bin.
        { name: 'exact', mean: 0.5, n: 4, null_count: 2, distribution: [2, 0, 0, 0, 0, 0, 0, 0, 0, 2] },
        { name: 'apple', mean: 4 / 6, n: 6, null_count: 0, distribution: [2, 0, 0, 0, 0, 0, 0, 0, 0, 4] },
      ]);
    }
    // The pins went with the experiment: no active one needs them.
    expect(await ctx.database.prisma.pinnedEngineConfig.count({ where: { agentId } })).toBe(0);
  });

  it('seals a judge’s key in what it stores and shows it masked', async () => {
    const judge = {
      name: 'judge',
      kind: 'model_judge',
      rubric: 'Polite',
      model: {
        provider: 'openai',
        name: 'gpt',
        baseUrl: 'http://127.0.0.1:9/v1',
        apiKey: 'sk-secret-judge-key-123456',
      },
    };
    const experiment = await launch(owner, agentId, body({ scorers: [judge] }));
    expect(JSON.stringify(experiment.scorers)).toContain(SECRET_MASK_BULLETS);
    expect(JSON.stringify(experiment.scorers)).not.toContain('sk-secret-judge-key-123456');
    const row = await ctx.database.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    expect(JSON.stringify(row.scorers)).not.toContain('sk-secret-judge-key-123456');
    await cancelAll();
  });

  it('grades null, never 0, where a model judge gives no answer', async () => {
    // Nothing listens on port 9 of loopback: every call is refused.
    const judge = {
      name: 'judge',
      kind: 'model_judge',
      rubric: 'Polite',
      model: { provider: 'openai', name: 'gpt', baseUrl: 'http://127.0.0.1:9/v1' },
    };
    const experiment = await launch(owner, agentId, body({ agent_versions: [2], scorers: [judge], concurrency: 3 }));
    await runToEnd(experiment.id);
    const detail = ZExperimentDetail.parse((await owner.agent.get(`${base()}/${experiment.id}`)).body);
    expect(detail.aggregates[0]?.scorers[0]).toMatchObject({
      mean: null,
      n: 0,
      null_count: 3,
      ci: null,
      distribution: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    });
    const results = z
      .array(ZExperimentResult)
      .parse((await owner.agent.get(`${base()}/${experiment.id}/results`)).body);
    for (const result of results) {
      expect(result.scores).toEqual([
        { name: 'judge', kind: 'model_judge', score: null, reason: expect.stringContaining('no answer') },
      ]);
    }
  });
});

describe('refusals of a launch', () => {
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['no dataset', { dataset: undefined }, 422, 'dataset'],
    ['no versions', { agent_versions: [] }, 422, 'agent_versions'],
    ['a version twice', { agent_versions: [1, 1] }, 422, 'agent_versions'],
    ['a version that is no number', { agent_versions: ['1'] }, 422, 'agent_versions[0]'],
    ['no scorers', { scorers: [] }, 422, 'scorers'],
    ['an unknown scorer kind', { scorers: [{ name: 'x', kind: 'vibes' }] }, 422, 'scorers[0].kind'],
    ['zero repeats', { repeats: 0 }, 422, 'repeats'],
    ['an unknown field', { extra: true }, 422, ''],
  ];
  it.each(cases)('refuses %s', async (_, overrides, status, path) => {
    const response = await member.agent.post(base()).set(IN_OWNERS()).send(body(overrides));
    expectProblemShape(response, status);
    if (path !== '') expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  const unusable: [string, () => Record<string, unknown>, string][] = [
    ['a version the agent never had', () => ({ agent_versions: [1, 9] }), 'agent_versions[1]'],
    ['another workspace’s dataset', () => ({ dataset: strangersDataset }), 'dataset'],
    ['a made-up dataset', () => ({ dataset: '00000000-0000-4000-8000-000000000000' }), 'dataset'],
    ['a dataset version it never had', () => ({ dataset_version: 99 }), 'dataset_version'],
    [
      'a scorer that does not compile',
      () => ({ scorers: [{ name: 's', kind: 'json_schema', schema: { type: 'nonsense' } }] }),
      'scorers[0]',
    ],
    [
      'a masked key standing for nothing',
      () => ({
        scorers: [
          {
            name: 'j',
            kind: 'model_judge',
            rubric: 'r',
            model: {
              provider: 'openai',
              name: 'g',
              baseUrl: 'http://127.0.0.1:9/v1',
              apiKey: `${SECRET_MASK_BULLETS}abcd`,
            },
          },
        ],
      }),
      'scorers[0].model.apiKey',
    ],
    ['more runs than EXPERIMENT_MAX_RUNS', () => ({ repeats: 7 }), 'agent_versions'],
    ['a concurrency above EXPERIMENT_MAX_CONCURRENCY', () => ({ concurrency: 9 }), 'concurrency'],
  ];
  let strangersDataset: string;
  beforeAll(async () => {
    strangersDataset = (await createDataset(stranger, [{ question: 'q' }])).id;
  });
  it.each(unusable)('refuses %s (422), writing nothing', async (_, overrides, path) => {
    const before = await ctx.database.prisma.experiment.count();
    const response = await member.agent.post(base()).set(IN_OWNERS()).send(body(overrides()));
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining(path) })]),
    );
    expect(await ctx.database.prisma.experiment.count()).toBe(before);
  });

  it('refuses a launch past MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE, however many race for the last place', async () => {
    const inWorkspace = { workspaceId: owner.workspaceId, status: { in: ['running', 'cancelling'] } };
    const active = await ctx.database.prisma.experiment.count({ where: inWorkspace });
    for (let i = active; i < MAX_ACTIVE - 1; i++) await launch(member, agentId, body(), owner.workspaceId);
    const racing = await Promise.all([1, 2, 3].map(() => member.agent.post(base()).set(IN_OWNERS()).send(body())));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 422, 422]);
    expect(await ctx.database.prisma.experiment.count({ where: inWorkspace })).toBe(MAX_ACTIVE);
    await cancelAll();
  });

  it('keeps EXPERIMENTS_KEPT_PER_AGENT: a launch deletes the oldest finished ones', async () => {
    const agent = await createVersionedAgent(owner, [undefined]);
    const launched: string[] = [];
    for (let i = 0; i < KEPT + 2; i++) {
      const experiment = await launch(owner, agent, body({ agent_versions: [1] }));
      await owner.agent.post(`/api/v1/agents/${agent}/experiments/${experiment.id}/cancel`);
      await pass();
      launched.push(experiment.id);
    }
    const kept = await ctx.database.prisma.experiment.findMany({
      where: { agentId: agent },
      orderBy: { createdAt: 'asc' },
    });
    expect(kept.map((row) => row.id)).toEqual(launched.slice(-KEPT));
  });

  it('refuses strings PostgreSQL cannot store and names past their length', async () => {
    for (const rawEscape of ['\\u0000', '\\ud800']) {
      const response = await member.agent
        .post(base())
        .set(IN_OWNERS())
        .set('content-type', 'application/json')
        .send(JSON.stringify(body({ name: 'x@@' })).replace('@@', rawEscape));
      expectProblemShape(response, 422);
      expect(response.body.errors).toEqual([{ path: 'name', message: expect.any(String) }]);
    }
    expectProblemShape(
      await member.agent
        .post(base())
        .set(IN_OWNERS())
        .send(body({ name: 'n'.repeat(10_000) })),
      422,
    );
  });
});

describe('who may', () => {
  let experimentId: string;
  beforeAll(async () => {
    experimentId = (await launch(owner, agentId, body({ agent_versions: [1] }))).id;
  });
  afterAll(cancelAll);

  it('lets viewers read and nothing more', async () => {
    expect((await viewer.agent.get(base()).set(IN_OWNERS())).status).toBe(200);
    expect((await viewer.agent.get(`${base()}/${experimentId}`).set(IN_OWNERS())).status).toBe(200);
    expect((await viewer.agent.get(`${base()}/${experimentId}/results`).set(IN_OWNERS())).status).toBe(200);
    expectProblemShape(await viewer.agent.post(base()).set(IN_OWNERS()).send(body()), 403);
    expectProblemShape(await viewer.agent.post(`${base()}/${experimentId}/cancel`).set(IN_OWNERS()), 403);
    expectProblemShape(await viewer.agent.delete(`${base()}/${experimentId}`).set(IN_OWNERS()), 403);
  });

  it('answers 401 without a session', async () => {
    expectProblemShape(await request(ctx.app).get(base()), 401);
    expectProblemShape(await request(ctx.app).post(base()).send(body()), 401);
  });

  it('treats another workspace’s ids as unknown', async () => {
    const strangersAgent = await createVersionedAgent(stranger, [undefined]);
    const theirs = await launch(stranger, strangersAgent, {
      dataset: (await createDataset(stranger, [{ question: 'q' }])).id,
      agent_versions: [1],
      scorers: EXACT_AND_CONTAINS,
    });
    expectProblemShape(await owner.agent.get(`/api/v1/agents/${strangersAgent}/experiments`), 404);
    expectProblemShape(await owner.agent.post(`/api/v1/agents/${strangersAgent}/experiments`).send(body()), 404);
    expectProblemShape(await owner.agent.get(`${base()}/${theirs.id}`), 404);
    expectProblemShape(await owner.agent.get(`/api/v1/agents/${strangersAgent}/experiments/${theirs.id}`), 404);
    expectProblemShape(await owner.agent.post(`${base()}/${theirs.id}/cancel`), 404);
    expectProblemShape(await owner.agent.delete(`${base()}/${theirs.id}`), 404);
    expectProblemShape(await owner.agent.get(`${base()}/${theirs.id}/export`), 404);
    expectProblemShape(await owner.agent.get(`${base()}/not-a-uuid`), 400);
    await stranger.agent.post(`/api/v1/agents/${strangersAgent}/experiments/${theirs.id}/cancel`);
  });
});

describe('reading an experiment', () => {
  let experimentId: string;
  beforeAll(async () => {
    experimentId = (await launch(owner, agentId, body({ concurrency: 8 }))).id;
    await pass();
    // Version 2 gets its first item wrong, and fails the second.
    await endPendingRuns(ctx.database.prisma, agentId, ({ question, pinnedVersion }) => {
      if (pinnedVersion === 1) return { status: 'succeeded', reply: mockReply(question) };
      if (question === 'pear tart') return { status: 'failed', error: 'The engine stopped', errorCode: 'engine_lost' };
      return { status: 'succeeded', reply: question === 'apple pie' ? '=HYPERLINK("x")' : mockReply(question) };
    });
    await runToEnd(experimentId);
  });

  it('lists newest first, with a total', async () => {
    const response = await owner.agent.get(`${base()}?limit=1`);
    expect(response.status).toBe(200);
    expect(Number(response.headers['x-total-count'])).toBeGreaterThan(1);
    expect(z.array(ZExperiment).parse(response.body)[0]?.id).toBe(experimentId);
  });

  it('pages results in the dataset’s order, filtered by version, item or state', async () => {
    const all = await owner.agent.get(`${base()}/${experimentId}/results`);
    const results = z.array(ZExperimentResult).parse(all.body);
    expect(results.map((r) => [r.position, r.agent_version])).toEqual([
      [0, 1],
      [0, 2],
      [1, 1],
      [1, 2],
      [2, 1],
      [2, 2],
    ]);
    expect(results[3]).toMatchObject({
      state: 'failed',
      error: 'The engine stopped',
      error_code: 'engine_lost',
      scores: null,
    });
    expect(results[0]).toMatchObject({
      state: 'scored',
      reply: 'You said: apple pie',
      latency_ms: expect.any(Number),
      tokens: { input: 3, output: 4, total: 7 },
    });
    const v2 = await owner.agent.get(`${base()}/${experimentId}/results?version=2&state=scored`);
    expect(v2.body.map((r: { position: number }) => r.position)).toEqual([0, 2]);
    const item = await owner.agent.get(`${base()}/${experimentId}/results?item=${dataset.itemIds[2]}&limit=1&offset=1`);
    expect(item.headers['x-total-count']).toBe('2');
    expect(item.body).toHaveLength(1);
    expectProblemShape(await owner.agent.get(`${base()}/${experimentId}/results?version=1e3`), 400);
  });

  it('compares two versions item by item', async () => {
    const response = await owner.agent.get(`${base()}/${experimentId}/comparison?base=1&candidate=2`);
    expect(response.status).toBe(200);
    const comparison = ZExperimentComparison.parse(response.body);
    expect(comparison.counts).toEqual({ items: 3, improved: 0, regressed: 2, unchanged: 1, reply_changed: 2 });
    expect(comparison.items.map((item) => [item.position, item.verdict, item.reply_changed])).toEqual([
      [0, 'regressed', true],
      // The candidate failed: no scores to compare, one failure more, and no reply.
      [1, 'regressed', true],
      [2, 'unchanged', false],
    ]);
  });

  it('filters the comparison’s items by verdict or changed reply before paging, its counts over every item', async () => {
    const compare = async (query: string) => {
      const response = await owner.agent.get(`${base()}/${experimentId}/comparison?base=1&candidate=2&${query}`);
      expect(response.status).toBe(200);
      const comparison = ZExperimentComparison.parse(response.body);
      expect(comparison.counts).toEqual({ items: 3, improved: 0, regressed: 2, unchanged: 1, reply_changed: 2 });
      return { matched: comparison.matched, positions: comparison.items.map((item) => item.position) };
    };
    expect(await compare('')).toEqual({ matched: 3, positions: [0, 1, 2] });
    expect(await compare('verdict=regressed')).toEqual({ matched: 2, positions: [0, 1] });
    // The page is of the items kept: the second regressed item, not the second item.
    expect(await compare('verdict=regressed&limit=1&offset=1')).toEqual({ matched: 2, positions: [1] });
    expect(await compare('verdict=unchanged')).toEqual({ matched: 1, positions: [2] });
    expect(await compare('verdict=improved')).toEqual({ matched: 0, positions: [] });
    expect(await compare('reply_changed=true')).toEqual({ matched: 2, positions: [0, 1] });
    expect(await compare('reply_changed=false')).toEqual({ matched: 1, positions: [2] });
    expect(await compare('verdict=regressed&reply_changed=false')).toEqual({ matched: 0, positions: [] });
    for (const bad of ['verdict=better', 'verdict=', 'verdict=REGRESSED', 'reply_changed=1', 'reply_changed=yes']) {
      expectProblemShape(await owner.agent.get(`${base()}/${experimentId}/comparison?base=1&candidate=2&${bad}`), 400);
    }
  });

  it('refuses a comparison of a version with itself or with one the experiment did not run', async () => {
    const refused = await owner.agent.get(`${base()}/${experimentId}/comparison?base=1&candidate=1`);
    expectProblemShape(refused, 422);
    expectProblemShape(await owner.agent.get(`${base()}/${experimentId}/comparison?base=1&candidate=7`), 422);
    expectProblemShape(await owner.agent.get(`${base()}/${experimentId}/comparison?base=1`), 400);
  });

  it('exports JSON Lines and CSV, formulas made inert', async () => {
    const jsonl = await owner.agent
      .get(`${base()}/${experimentId}/export`)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => done(null, text));
      });
    expect(jsonl.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = (jsonl.body as string)
      .trim()
      .split('\n')
      .map((line) => ZExperimentResult.parse(JSON.parse(line)));
    expect(lines).toHaveLength(6);
    const csv = await owner.agent.get(`${base()}/${experimentId}/export?format=csv`);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toMatch(/,score:exact,score:apple$/);
    expect(rows).toHaveLength(7);
    expect(csv.text).toContain(`"'=HYPERLINK(""x"")"`);
    expectProblemShape(await owner.agent.get(`${base()}/${experimentId}/export?format=xlsx`), 400);
  });
});

describe('cancel and delete', () => {
  it('cancels waiting runs at once, asks running ones to stop, and ends cancelled when they have', async () => {
    const experiment = await launch(owner, agentId, body({ concurrency: 2 }));
    await pass();
    const [running] = await ctx.database.prisma.agentRun.findMany({
      where: { agentId, status: 'pending', subject: `experiment:${experiment.id}` },
    });
    await ctx.database.prisma.agentRun.update({
      where: { agentId_id: { agentId, id: running?.id as string } },
      data: { status: 'running', startedAt: new Date() },
    });
    expectProblemShape(await owner.agent.delete(`${base()}/${experiment.id}`), 409);
    const cancelled = await owner.agent.post(`${base()}/${experiment.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelling', progress: { pending: 0, queued: 2, cancelled: 4 } });
    const runs = await ctx.database.prisma.agentRun.findMany({ where: { subject: `experiment:${experiment.id}` } });
    expect(runs.map((run) => [run.status, run.cancelRequestedAt !== null]).sort()).toEqual([
      ['cancelled', true],
      ['running', true],
    ]);
    await pass();
    expect((await owner.agent.get(`${base()}/${experiment.id}`)).body.status).toBe('cancelling');
    // The engine stops it.
    await ctx.database.prisma.agentRun.update({
      where: { agentId_id: { agentId, id: running?.id as string } },
      data: { status: 'cancelled', finishedAt: new Date() },
    });
    await pass();
    const done = ZExperimentDetail.parse((await owner.agent.get(`${base()}/${experiment.id}`)).body);
    expect(done).toMatchObject({ status: 'cancelled', progress: { cancelled: 6, pending: 0, queued: 0 } });
    expect(done.finished_at).not.toBeNull();
    // A second cancel changes nothing.
    expect((await owner.agent.post(`${base()}/${experiment.id}/cancel`)).body.status).toBe('cancelled');
    expect((await owner.agent.delete(`${base()}/${experiment.id}`)).status).toBe(204);
    expectProblemShape(await owner.agent.get(`${base()}/${experiment.id}`), 404);
    // Its runs stay in the agent's run history.
    expect(await ctx.database.prisma.agentRun.count({ where: { subject: `experiment:${experiment.id}` } })).toBe(2);
  });

  it('leaves no run going and none pending when a cancel races the worker', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const experiment = await launch(owner, agentId, body({ concurrency: 4 }));
      await Promise.all([pass('one'), owner.agent.post(`${base()}/${experiment.id}/cancel`), pass('two')]);
      await pass();
      const row = await ctx.database.prisma.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
      expect(row.status).toBe('cancelled');
      const runs = await ctx.database.prisma.agentRun.findMany({ where: { subject: `experiment:${experiment.id}` } });
      expect(runs.every((run) => run.status === 'cancelled')).toBe(true);
      expect(
        await ctx.database.prisma.experimentResult.count({
          where: { experimentId: experiment.id, state: { not: 'cancelled' } },
        }),
      ).toBe(0);
    }
  });

  it('keeps the experiment when a delete races a cancel', async () => {
    const experiment = await launch(owner, agentId, body());
    const [cancelled, deleted] = await Promise.all([
      owner.agent.post(`${base()}/${experiment.id}/cancel`),
      owner.agent.delete(`${base()}/${experiment.id}`),
    ]);
    expect(cancelled.status).toBe(200);
    expectProblemShape(deleted, 409);
    await pass();
    expect((await owner.agent.delete(`${base()}/${experiment.id}`)).status).toBe(204);
  });
});

describe('the tenant boundary', () => {
  it('gives engine roles no privilege on experiments or their results', async () => {
    const [row] = await ctx.database.prisma.$queryRaw<Record<string, boolean>[]>`
      SELECT has_table_privilege(${ENGINE_GROUP_ROLE}, 'experiments', 'SELECT') AS experiments,
        has_table_privilege(${ENGINE_GROUP_ROLE}, 'experiment_results', 'SELECT') AS results`;
    expect(row).toEqual({ experiments: false, results: false });
  });
});
