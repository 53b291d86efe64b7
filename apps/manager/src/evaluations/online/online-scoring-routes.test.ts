// GET/PUT /api/v1/agents/{id}/online-scoring through HTTP: defaults, a judge's key sealed and masked
// for viewers, a mask sent back keeping it, and what is refused: bad bodies, scorers that cannot run,
// unknown or foreign agents, viewers writing, no session.
import { randomUUID } from 'node:crypto';
import { SECRET_MASK_BULLETS, type TOnlineScoring, ZOnlineScoring } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../../testing/manager-test-app.js';
import { createAgentThroughApi } from '../../testing/resource-fixtures.js';

const KEY = 'sk-judge-key-0123456789abcdef';
let ctx: ManagerTestContext;
let owner: SignedInUser;
let member: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;
let agentId: string;

beforeAll(async () => {
  ctx = await startManagerTestApp({ EGRESS_ALLOW: '127.0.0.2' });
  owner = await signUpUser(ctx.app);
  member = await signUpUser(ctx.app);
  viewer = await signUpUser(ctx.app);
  stranger = await signUpUser(ctx.app);
  await addToWorkspace(owner, member, 'member');
  await addToWorkspace(owner, viewer, 'viewer');
  agentId = (await createAgentThroughApi(owner)).id;
});
afterAll(() => ctx?.close());

const judge = (apiKey: string = KEY) => ({
  name: 'helpful',
  kind: 'model_judge',
  rubric: 'The reply helps.',
  model: { provider: 'openai', name: 'judge-1', baseUrl: 'http://127.0.0.2:9/v1', apiKey },
});
const body = (overrides: Record<string, unknown> = {}) => ({
  enabled: true,
  sample_rate: 0.25,
  scorers: [judge(), { name: 'short', kind: 'tokens', max: 500 }],
  ...overrides,
});
const IN_OWNERS = () => ({ 'x-workspace-id': owner.workspaceId });
const path = (id = agentId) => `/api/v1/agents/${id}/online-scoring`;
const put = (user: SignedInUser, sent: unknown, id = agentId) =>
  user.agent
    .put(path(id))
    .set(IN_OWNERS())
    .send(sent as object);
const get = (user: SignedInUser, id = agentId) => user.agent.get(path(id)).set(IN_OWNERS());

describe('GET/PUT /agents/{id}/online-scoring', () => {
  it('reads disabled defaults before it is written, to every role', async () => {
    const agent = await createAgentThroughApi(owner);
    const read = await get(viewer, agent.id);
    expect(read.status).toBe(200);
    expect(ZOnlineScoring.parse(read.body)).toMatchObject({
      enabled: false,
      sample_rate: 0,
      scorers: [],
      queued_runs: 0,
      dropped_runs: 0,
      updated_at: null,
    });
    expect(read.body.sources).not.toContain('experiment');
  });

  it('stores the settings with the judge key sealed, shows it to members and masks it for viewers', async () => {
    const written = await put(member, body({ sources: ['stream', 'schedule'] }));
    expect(written.status).toBe(200);
    const settings: TOnlineScoring = ZOnlineScoring.parse(written.body);
    expect(settings).toMatchObject({ enabled: true, sample_rate: 0.25, sources: ['stream', 'schedule'] });
    expect(settings.scorers[0]).toMatchObject({ model: { apiKey: KEY }, scale: { min: 1, max: 5 } });
    const [stored] = await ctx.database.prisma.$queryRaw<{ scorers: string }[]>`
      SELECT scorers::text FROM online_scoring_settings WHERE agent_id = ${agentId}::uuid`;
    expect(stored?.scorers).not.toContain(KEY);

    const masked = `${SECRET_MASK_BULLETS}${KEY.slice(-4)}`;
    expect((await get(viewer)).body.scorers[0].model.apiKey).toBe(masked);
    expect((await get(owner)).body.scorers[0].model.apiKey).toBe(KEY);

    // The mask sent back keeps the key; a forged one is refused.
    const kept = await put(owner, body({ sample_rate: 0.5, scorers: [judge(masked)] }));
    expect(kept.status).toBe(200);
    expect(kept.body.scorers[0].model.apiKey).toBe(KEY);
    const forged = await put(owner, body({ scorers: [judge(`${SECRET_MASK_BULLETS}zzzz`)] }));
    expectProblemShape(forged, 422);
    expect(forged.body.errors[0].path).toBe('scorers[0].model.apiKey');
  });

  it.each([
    ['a rate above 1', { sample_rate: 1.5 }],
    ['a negative rate', { sample_rate: -0.1 }],
    ['no scorers', { scorers: [] }],
    ['experiment runs', { sources: ['experiment'] }],
    ['a repeated source', { sources: ['stream', 'stream'] }],
    ['an unknown field', { extra: true }],
    ['duplicate scorer names', { scorers: [judge(), judge()] }],
    ['a NUL character', { scorers: [{ name: 'a\u0000b', kind: 'tokens', max: 1 }] }],
    ['a lone surrogate', { scorers: [{ name: 'x', kind: 'contains', texts: ['a\ud800b'] }] }],
    ['a huge text', { scorers: [{ name: 'x', kind: 'contains', texts: ['x'.repeat(100_000)] }] }],
    ['a regex RE2 refuses', { scorers: [{ name: 'x', kind: 'regex', pattern: '(?=a)' }] }],
    [
      'a judge at an address the operator refuses',
      { scorers: [{ ...judge(), model: { ...judge().model, baseUrl: 'http://10.0.0.1/v1' } }] },
    ],
  ])('refuses %s with a 4xx', async (_, overrides) => {
    const response = await put(owner, body(overrides));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expectProblemShape(response, response.status);
  });

  it('refuses a JSON Schema that does not compile, naming the scorer', async () => {
    const response = await put(
      owner,
      body({ scorers: [{ name: 'shape', kind: 'json_schema', schema: { $ref: 'https://example.com/elsewhere' } }] }),
    );
    expectProblemShape(response, 422);
    expect(response.body.errors[0].path).toMatch(/^scorers\[0\]/);
  });

  it('answers 400 for a bad id, 404 for an unknown or foreign agent, 403 for a viewer writing, 401 without a session', async () => {
    expectProblemShape(await get(owner, 'not-a-uuid'), 400);
    expectProblemShape(await get(owner, randomUUID()), 404);
    expectProblemShape(await put(owner, body(), randomUUID()), 404);
    const theirs = await createAgentThroughApi(stranger);
    expectProblemShape(await get(owner, theirs.id), 404);
    expectProblemShape(await put(owner, body(), theirs.id), 404);
    expectProblemShape(await put(viewer, body()), 403);
    expectProblemShape(await request(ctx.app).get(path()), 401);
    expectProblemShape(await request(ctx.app).put(path()).send(body()), 401);
  });
});
