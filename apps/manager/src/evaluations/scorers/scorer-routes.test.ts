// POST /api/v1/scorers/test on the real app and database: members grade a sample (a model judge on a
// fake OpenAI-compatible server), viewers and strangers cannot, hostile bodies are 4xx, a judge at a
// refused address is a 422 before any call, and each workspace is limited per minute.
import { SECRET_MASK_BULLETS } from '@agentplane/contracts';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../../testing/manager-test-app.js';

const PATH = '/api/v1/scorers/test';
const TESTS_PER_MINUTE = 4;
let ctx: ManagerTestContext;
// Started before the tables of cases below are built, which name its URL.
const judgeServer: FakeOpenAiServer = await startFakeOpenAiServer();

beforeAll(async () => {
  ctx = await startManagerTestApp({ SCORER_TESTS_PER_MINUTE: String(TESTS_PER_MINUTE) });
});
afterAll(async () => {
  await judgeServer?.close();
  await ctx?.close();
});

const SAMPLE = {
  input: [{ role: 'user', content: 'Capital of France?' }],
  observation: { reply: 'Paris', tool_calls: [{ name: 'lookup', arguments: { country: 'FR' } }], latency_ms: 900 },
  expected: { reply: 'Paris' },
};

const judge = (model: Record<string, unknown> = {}) => ({
  name: 'judge',
  kind: 'model_judge',
  rubric: 'Names the capital.',
  model: {
    provider: 'openai',
    name: 'judge-1',
    baseUrl: judgeServer.baseUrl,
    apiKey: 'sk-judge-0123456789abcdef',
    ...model,
  },
});

const body = (scorers: unknown[], sample: unknown = SAMPLE) => ({ scorers, sample });

describe('a member', () => {
  it('gets one result per scorer, in order, a model judge among them', async () => {
    const owner = await signUpUser(ctx.app);
    const member = await signUpUser(ctx.app);
    await addToWorkspace(owner, member, 'member');
    judgeServer.script({
      text: ['{"score": 5, "reason": "Correct."}'],
      usage: { prompt_tokens: 10, completion_tokens: 3 },
    });
    const response = await member.agent
      .post(PATH)
      .set('x-workspace-id', owner.workspaceId)
      .send(
        body([
          { name: 'exact', kind: 'exact_match' },
          { name: 'tool', kind: 'tool_called', tool: 'lookup', arguments: { country: 'FR' } },
          { name: 'fast', kind: 'latency', target: 500, max: 1500 },
          judge(),
        ]),
      );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      results: [
        { name: 'exact', kind: 'exact_match', score: 1, reason: 'The reply equals the expected text' },
        { name: 'tool', kind: 'tool_called', score: 1, reason: 'Called "lookup"' },
        {
          name: 'fast',
          kind: 'latency',
          score: 0.6,
          reason: '900 ms, between the target of 500 and the maximum of 1500',
        },
        {
          name: 'judge',
          kind: 'model_judge',
          score: 1,
          reason: '5/5: Correct.',
          judge_tokens: { input: 10, output: 3 },
        },
      ],
    });
  });
});

describe('access', () => {
  it('is refused to a viewer (403), without a session (401), and in a workspace the user is not in (403)', async () => {
    const owner = await signUpUser(ctx.app);
    const viewer = await signUpUser(ctx.app);
    const stranger = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    const valid = body([{ name: 'exact', kind: 'exact_match' }]);
    expectProblemShape(await viewer.agent.post(PATH).set('x-workspace-id', owner.workspaceId).send(valid), 403);
    expectProblemShape(await request(ctx.app).post(PATH).send(valid), 401);
    expectProblemShape(await stranger.agent.post(PATH).set('x-workspace-id', owner.workspaceId).send(valid), 403);
  });
});

describe('bad input', () => {
  it.each([
    ['no scorers', body([]), 'scorers'],
    ['an unknown kind', body([{ name: 'x', kind: 'vibes' }]), 'scorers[0].kind'],
    ['an unknown field', body([{ name: 'x', kind: 'exact_match', fuzzy: true }]), 'scorers[0].fuzzy'],
    ['a lookahead pattern', body([{ name: 'x', kind: 'regex', pattern: '(?=x)' }]), 'scorers[0].pattern'],
    [
      'duplicate names',
      body([
        { name: 'x', kind: 'exact_match' },
        { name: 'x', kind: 'contains', texts: ['a'] },
      ]),
      'scorers[1].name',
    ],
    ['a target over the maximum', body([{ name: 'x', kind: 'latency', target: 10, max: 5 }]), 'scorers[0].target'],
    [
      'arguments without a tool',
      body([{ name: 'x', kind: 'tool_called', arguments: { a: 1 } }]),
      'scorers[0].arguments',
    ],
    ['a judge scale upside down', body([{ ...judge(), scale: { min: 5, max: 1 } }]), 'scorers[0].scale.max'],
    ['a sample without an observation', body([{ name: 'x', kind: 'exact_match' }], {}), 'sample.observation'],
    [
      'a schema Ajv refuses',
      body([{ name: 'x', kind: 'json_schema', schema: { type: 'nonsense' } }]),
      'scorers[0].schema',
    ],
    [
      'a masked key, which stands for nothing stored here',
      body([judge({ apiKey: `${SECRET_MASK_BULLETS}cdef` })]),
      'scorers[0].model.apiKey',
    ],
    [
      'a judge at a link-local (cloud metadata) address',
      body([judge({ baseUrl: 'http://169.254.169.254/v1' })]),
      'scorers[0].model.baseUrl',
    ],
  ])('refuses %s with 422 naming the field', async (_what, sent, path) => {
    const user = await signUpUser(ctx.app);
    const before = judgeServer.requests.length;
    const response = await user.agent.post(PATH).send(sent);
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
    expect(judgeServer.requests.length).toBe(before);
  });

  it.each([
    ['a NUL character', 'x\\u0000y'],
    ['a lone surrogate', '\\ud800'],
  ])('refuses %s in a reply with 422', async (_what, rawEscape) => {
    const user = await signUpUser(ctx.app);
    const text = JSON.stringify(body([{ name: 'x', kind: 'exact_match' }], { observation: { reply: '@@' } }));
    const response = await user.agent
      .post(PATH)
      .set('Content-Type', 'application/json')
      .send(text.replace('@@', rawEscape));
    expectProblemShape(response, 422);
  });

  it('refuses a reply over its cap with 422, and a body over the byte limit with 413', async () => {
    const user = await signUpUser(ctx.app);
    const long = await user.agent
      .post(PATH)
      .send(body([{ name: 'x', kind: 'exact_match' }], { observation: { reply: 'x'.repeat(200_001) } }));
    expectProblemShape(long, 422);
    expect(long.body.errors[0].path).toBe('sample.observation.reply');
    const huge = await user.agent
      .post(PATH)
      .send(body([{ name: 'x', kind: 'exact_match' }], { observation: { reply: 'x'.repeat(2 * 1024 * 1024) } }));
    expectProblemShape(huge, 413);
  });
});

describe('the per-workspace limit', () => {
  it('answers 429 with Retry-After past the limit, and leaves other workspaces alone', async () => {
    const [busy, other] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app)]);
    const valid = body([{ name: 'exact', kind: 'exact_match' }]);
    for (let i = 0; i < TESTS_PER_MINUTE; i++) expect((await busy.agent.post(PATH).send(valid)).status).toBe(200);
    const limited = await busy.agent.post(PATH).send(valid);
    expectProblemShape(limited, 429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await other.agent.post(PATH).send(valid)).status).toBe(200);
  });
});
