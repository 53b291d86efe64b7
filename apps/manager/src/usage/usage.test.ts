// GET /api/v1/agents/{id}/usage and /api/v1/usage through HTTP, over a scripted workload of runs written
// as the engine writes them (as the database owner here; the engine's own count of a mock-model run is
// checked in apps/engine/src/runs/run-usage.test.ts). Every figure is worked out by hand below.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TUsageFigures, ZAgentUsage, ZWorkspaceUsage } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { createAgentThroughApi } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;
let alpha: { id: string; name: string };
let beta: { id: string; name: string };
let strangersAgentId: string;

// USD per million tokens: gpt-4o at its list price, the mock model at a price that makes small sums.
const PRICES = {
  models: {
    'openai/gpt-4o': { input_per_million_usd: 2.5, output_per_million_usd: 10 },
    'mock/echo': { input_per_million_usd: 1, output_per_million_usd: 2 },
  },
};

type RunSeed = {
  status: string;
  createdAt: string;
  durationMs?: number;
  usage?: { input_tokens: number; output_tokens: number; model?: string };
};

async function insertRun(agentId: string, run: RunSeed) {
  const started = run.durationMs === undefined && run.status !== 'running' ? null : run.createdAt;
  await ctx.database.prisma.$executeRaw`
    INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, source, status, created_at, started_at, finished_at, usage)
    VALUES (${randomUUID()}, ${agentId}::uuid, 'thread-1', 'agui:key', 'stream', ${run.status}::"RunStatus",
      ${run.createdAt}::timestamptz, ${started}::timestamptz,
      ${run.durationMs ?? null}::int * interval '1 millisecond' + ${run.createdAt}::timestamptz,
      ${run.usage === undefined ? null : JSON.stringify({ ...run.usage, total_tokens: 0, model_calls: 1 })}::jsonb)`;
}

const gpt4o = (input_tokens: number, output_tokens: number) => ({
  input_tokens,
  output_tokens,
  model: 'openai/gpt-4o',
});

beforeAll(async () => {
  const pricesFile = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
  writeFileSync(pricesFile, JSON.stringify(PRICES));
  ctx = await startManagerTestApp({ MODEL_PRICES_FILE: pricesFile });
  owner = await signUpUser(ctx.app);
  viewer = await signUpUser(ctx.app);
  await addToWorkspace(owner, viewer, 'viewer');
  stranger = await signUpUser(ctx.app);
  alpha = await createAgentThroughApi(owner);
  beta = await createAgentThroughApi(owner);
  strangersAgentId = (await createAgentThroughApi(stranger)).id;

  // Just before the range: not counted.
  await insertRun(alpha.id, {
    status: 'failed',
    createdAt: '2026-03-31T23:59:59.999Z',
    durationMs: 1,
    usage: gpt4o(9, 9),
  });
  // 2026-04-01, alpha: 4 runs, 2 failed; durations 1000, 4000, 4000, 2000; cost 0.0045 + 0.00125, one unpriced.
  await insertRun(alpha.id, {
    status: 'succeeded',
    createdAt: '2026-04-01T10:00:00Z',
    durationMs: 1000,
    usage: gpt4o(1000, 200),
  });
  await insertRun(alpha.id, {
    status: 'failed',
    createdAt: '2026-04-01T11:30:00Z',
    durationMs: 4000,
    usage: gpt4o(500, 0),
  });
  await insertRun(alpha.id, { status: 'failed', createdAt: '2026-04-01T15:00:00Z', durationMs: 4000 });
  await insertRun(alpha.id, {
    status: 'succeeded',
    createdAt: '2026-04-01T23:59:59.999Z',
    durationMs: 2000,
    usage: { input_tokens: 10, output_tokens: 5, model: 'acme/unpriced' },
  });
  // 2026-04-02, alpha: one still running (no duration, no usage), one cancelled mock-model run (cost 0.000012).
  await insertRun(alpha.id, { status: 'running', createdAt: '2026-04-02T00:00:00Z' });
  await insertRun(alpha.id, {
    status: 'cancelled',
    createdAt: '2026-04-02T12:00:00Z',
    durationMs: 500,
    usage: { input_tokens: 4, output_tokens: 4, model: 'mock/echo' },
  });
  // The range's end is exclusive.
  await insertRun(alpha.id, {
    status: 'succeeded',
    createdAt: '2026-04-03T00:00:00Z',
    durationMs: 1,
    usage: gpt4o(9, 9),
  });
  // 2026-04-01, beta: cost 0.00025 + 0.001.
  await insertRun(beta.id, {
    status: 'succeeded',
    createdAt: '2026-04-01T09:00:00Z',
    durationMs: 1000,
    usage: gpt4o(100, 100),
  });
  // Another workspace's run in the same range.
  await insertRun(strangersAgentId, {
    status: 'failed',
    createdAt: '2026-04-01T12:00:00Z',
    durationMs: 7,
    usage: gpt4o(7, 7),
  });
});
afterAll(() => ctx?.close());

const RANGE = '?from=2026-04-01T00:00:00Z&to=2026-04-03T00:00:00Z';
const agentUsage = (user: SignedInUser, query = RANGE, id = alpha.id) =>
  user.agent.get(`/api/v1/agents/${id}/usage${query}`).set('x-workspace-id', owner.workspaceId);
const workspaceUsage = (user: SignedInUser, query = RANGE) =>
  user.agent.get(`/api/v1/usage${query}`).set('x-workspace-id', owner.workspaceId);

const figures = (overrides: Partial<TUsageFigures>): TUsageFigures => ({
  runs: 0,
  errors: 0,
  duration_p50_ms: null,
  duration_p95_ms: null,
  input_tokens: 0,
  output_tokens: 0,
  cost_usd: null,
  unpriced_runs: 0,
  ...overrides,
});

const ALPHA_DAY_1 = figures({
  runs: 4,
  errors: 2,
  // Durations 1000, 2000, 4000, 4000: the median halfway between 2000 and 4000, the 95th among the 4000s.
  duration_p50_ms: 3000,
  duration_p95_ms: 4000,
  input_tokens: 1510,
  output_tokens: 205,
  cost_usd: 0.00575,
  unpriced_runs: 1,
});
const ALPHA_DAY_2 = figures({
  runs: 2,
  duration_p50_ms: 500,
  duration_p95_ms: 500,
  input_tokens: 4,
  output_tokens: 4,
  cost_usd: 0.000012,
});

describe('GET /agents/{id}/usage', () => {
  it("sums the agent's runs per UTC day exactly: runs, failures, duration percentiles, tokens and cost", async () => {
    const response = await agentUsage(viewer, `${RANGE}&bucket=day`);
    expect(response.status).toBe(200);
    expect(ZAgentUsage.parse(response.body)).toEqual({
      from: '2026-04-01T00:00:00.000Z',
      to: '2026-04-03T00:00:00.000Z',
      bucket: 'day',
      totals: figures({
        runs: 6,
        errors: 2,
        // Durations 500, 1000, 2000, 4000, 4000.
        duration_p50_ms: 2000,
        duration_p95_ms: 4000,
        input_tokens: 1514,
        output_tokens: 209,
        cost_usd: 0.005762,
        unpriced_runs: 1,
      }),
      // No online scorer graded these runs (evaluations/online tests the scores).
      scores: [],
      buckets: [
        { start: '2026-04-01T00:00:00.000Z', ...ALPHA_DAY_1, scores: [] },
        { start: '2026-04-02T00:00:00.000Z', ...ALPHA_DAY_2, scores: [] },
      ],
    });
  });

  it('buckets by the hour, listing the hours that had runs', async () => {
    const response = await agentUsage(owner, '?from=2026-04-01T10:00:00Z&to=2026-04-01T12:00:00Z&bucket=hour');
    expect(response.status).toBe(200);
    const one = { runs: 1, input_tokens: 0, output_tokens: 0 };
    expect(ZAgentUsage.parse(response.body).buckets).toEqual([
      {
        start: '2026-04-01T10:00:00.000Z',
        ...figures({ ...one, duration_p50_ms: 1000, duration_p95_ms: 1000, input_tokens: 1000, output_tokens: 200 }),
        cost_usd: 0.0045,
        scores: [],
      },
      {
        start: '2026-04-01T11:00:00.000Z',
        ...figures({ ...one, errors: 1, duration_p50_ms: 4000, duration_p95_ms: 4000, input_tokens: 500 }),
        cost_usd: 0.00125,
        scores: [],
      },
    ]);
  });

  it('defaults to the last 30 days by day, or the last 24 hours by hour, ending now', async () => {
    const recent = await createAgentThroughApi(owner);
    await insertRun(recent.id, {
      status: 'succeeded',
      createdAt: new Date(Date.now() - 3_600_000).toISOString(),
      durationMs: 10,
      usage: gpt4o(1, 1),
    });
    for (const [query, spanMs] of [
      ['', 30 * 86_400_000],
      ['?bucket=hour', 86_400_000],
    ] as const) {
      const report = ZAgentUsage.parse((await agentUsage(viewer, query, recent.id)).body);
      expect(Date.parse(report.to) - Date.parse(report.from)).toBe(spanMs);
      expect(report.totals).toMatchObject({ runs: 1, input_tokens: 1, output_tokens: 1 });
    }
  });

  it('answers 400 for a bad query or range, 404 for an unknown agent or another workspace’s, 403 to a non-member, 401 without a session', async () => {
    for (const query of [
      '?bucket=week',
      '?from=yesterday',
      '?to=2026-04-01',
      '?unknown=1',
      '?from=2026-04-02T00:00:00Z&to=2026-04-01T00:00:00Z',
      '?from=2026-04-01T00:00:00Z&to=2026-04-01T00:00:00Z',
      '?from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:01Z&bucket=hour',
      '?from=2025-01-01T00:00:00Z&to=2026-04-01T00:00:00Z&bucket=day',
      '?from=0000-01-01T00:00:00Z&to=0000-01-02T00:00:00Z',
      '?to=0000-01-15T00:00:00Z',
    ]) {
      expectProblemShape(await agentUsage(owner, query), 400);
      expectProblemShape(await workspaceUsage(owner, query), 400);
    }
    expectProblemShape(await agentUsage(owner, RANGE, 'not-a-uuid'), 400);
    expectProblemShape(await agentUsage(owner, RANGE, randomUUID()), 404);
    expectProblemShape(await agentUsage(owner, RANGE, strangersAgentId), 404);
    expectProblemShape(await agentUsage(stranger), 403);
    expectProblemShape(await workspaceUsage(stranger), 403);
    expectProblemShape(await request(ctx.app).get(`/api/v1/agents/${alpha.id}/usage`), 401);
    expectProblemShape(await request(ctx.app).get('/api/v1/usage'), 401);
  });
});

describe('GET /usage', () => {
  it("sums the workspace's runs per day and per agent, leaving other workspaces out", async () => {
    const response = await workspaceUsage(viewer);
    expect(response.status).toBe(200);
    const report = ZWorkspaceUsage.parse(response.body);
    const betaFigures = figures({
      runs: 1,
      duration_p50_ms: 1000,
      duration_p95_ms: 1000,
      input_tokens: 100,
      output_tokens: 100,
      cost_usd: 0.00125,
    });
    expect(report.totals).toEqual(
      figures({
        runs: 7,
        errors: 2,
        // Durations 500, 1000, 1000, 2000, 4000, 4000.
        duration_p50_ms: 1500,
        duration_p95_ms: 4000,
        input_tokens: 1614,
        output_tokens: 309,
        cost_usd: 0.007012,
        unpriced_runs: 1,
      }),
    );
    expect(report.buckets).toEqual([
      {
        start: '2026-04-01T00:00:00.000Z',
        ...ALPHA_DAY_1,
        runs: 5,
        duration_p50_ms: 2000,
        input_tokens: 1610,
        output_tokens: 305,
        cost_usd: 0.007,
      },
      { start: '2026-04-02T00:00:00.000Z', ...ALPHA_DAY_2 },
    ]);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(report.agents).toEqual(
      [
        { agent_id: alpha.id, name: alpha.name, ...(await agentUsage(owner)).body.totals },
        { agent_id: beta.id, name: beta.name, ...betaFigures },
      ].sort(byName),
    );
  });

  it('reports an empty range as zero runs, no durations and no cost', async () => {
    const report = ZWorkspaceUsage.parse(
      (await workspaceUsage(owner, '?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z')).body,
    );
    expect(report).toMatchObject({ totals: figures({}), buckets: [], agents: [] });
  });
});
