// An agent's tool policy (agent.tools: allow, deny, approval) through the API: validated with the field
// named, stored with the agent, and published in its engine_config, for every framework.
import { TOOL_PATTERNS_MAX_ITEMS } from '@agentplane/contracts';
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
import { agentBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

const POLICY = {
  allow: ['everything__*', 'files__read'],
  deny: ['*__delete_*'],
  approval: ['everything__echo'],
  unattended: 'allow',
};
const LLM = { model: { provider: 'mock', name: 'echo' } };

const withTools = (tools: unknown, agent: object = LLM, framework = 'LLM') =>
  agentBody({}, { framework, agent: { ...agent, tools } });

async function published(agentId: string) {
  const response = await owner.agent.get(`/api/v1/agents/${agentId}/engine-config`);
  expect(response.status).toBe(200);
  return response.body as { version: number; config: { agent: { config: { tools?: unknown } } } };
}

describe("an agent's tool policy", () => {
  it('is stored with the agent and published in its engine_config, and a PATCH republishes it', async () => {
    const created = await owner.agent.post('/api/v1/agents/').send(withTools(POLICY));
    expect(created.status).toBe(201);
    expect(created.body.agent.tools).toEqual(POLICY);
    expect(created.body.engine_config.agent.config.tools).toEqual(POLICY);
    expect((await published(created.body.id)).config.agent.config.tools).toEqual(POLICY);

    const fetched = await owner.agent.get(`/api/v1/agents/${created.body.id}`);
    expect(fetched.body.agent.tools).toEqual(POLICY);

    const narrower = { deny: ['*'] };
    const patched = await owner.agent
      .patch(`/api/v1/agents/${created.body.id}`)
      .send({ ...withTools(narrower), name: created.body.name });
    expect(patched.status).toBe(200);
    expect(await published(created.body.id)).toMatchObject({
      version: 2,
      config: { agent: { config: { tools: narrower } } },
    });
  });

  it('is taken by LANGGRAPH and CUSTOM agents too', async () => {
    for (const [framework, agent] of [
      ['LANGGRAPH', { graph: 'graphs/support.js:graph' }],
      ['CUSTOM', { module: 'agents/custom.js:createAgent' }],
    ] as const) {
      const created = await owner.agent.post('/api/v1/agents/').send(withTools(POLICY, agent, framework));
      expect(created.status).toBe(201);
      expect((await published(created.body.id)).config.agent.config.tools).toEqual(POLICY);
    }
  });

  it('refuses a bad pattern or list with a 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ deny: ['a__b', 'c__*', 'bad name'] }, 'agent.tools.deny[2]'],
      [{ allow: ['echo'] }, 'agent.tools.allow[0]'],
      [{ approval: [''] }, 'agent.tools.approval[0]'],
      [{ deny: ['a__(b|c)'] }, 'agent.tools.deny[0]'],
      [{ allow: Array.from({ length: TOOL_PATTERNS_MAX_ITEMS + 1 }, () => '*') }, 'agent.tools.allow'],
      [{ deny: 'a__*' }, 'agent.tools.deny'],
      [{ deny: [7] }, 'agent.tools.deny[0]'],
      [['a__*'], 'agent.tools'],
      [{ unattended: 'ask' }, 'agent.tools.unattended'],
      [{ unattended: true }, 'agent.tools.unattended'],
    ];
    for (const [tools, path] of cases) {
      const response = await owner.agent.post('/api/v1/agents/').send(withTools(tools));
      expectProblemShape(response, 422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    const unknownKey = await owner.agent.post('/api/v1/agents/').send(withTools({ approve: ['a__b'] }));
    expectProblemShape(unknownKey, 422);
    expect(unknownKey.text).toContain('approve');
  });

  it('refuses NUL, lone surrogates and huge patterns with a 4xx', async () => {
    for (const pattern of ['a__\u0000', 'a__\ud800', `a__${'b'.repeat(100_000)}`]) {
      const response = await owner.agent.post('/api/v1/agents/').send(withTools({ deny: [pattern] }));
      expect([400, 413, 422]).toContain(response.status);
      expectProblemShape(response, response.status);
    }
    const many = await owner.agent
      .post('/api/v1/agents/')
      .send(withTools({ deny: Array.from({ length: 50_000 }, (_, i) => `s__t${i}`) }));
    expect([413, 422]).toContain(many.status);
    expectProblemShape(many, many.status);
  });

  it("cannot be set on another workspace's agent, by a viewer, or without a session", async () => {
    const stranger = await signUpUser(ctx.app);
    const theirs = await stranger.agent.post('/api/v1/agents/').send(withTools(POLICY));
    expect(theirs.status).toBe(201);
    const denyAll = withTools({ deny: ['*'] });
    expectProblemShape(await owner.agent.patch(`/api/v1/agents/${theirs.body.id}`).send(denyAll), 404);

    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(stranger, viewer, 'viewer');
    const inTheirs = (test: request.Test) => test.set('x-workspace-id', stranger.workspaceId);
    expectProblemShape(await inTheirs(viewer.agent.patch(`/api/v1/agents/${theirs.body.id}`).send(denyAll)), 403);
    expectProblemShape(await inTheirs(viewer.agent.post('/api/v1/agents/').send(denyAll)), 403);
    expectProblemShape(await request(ctx.app).patch(`/api/v1/agents/${theirs.body.id}`).send(denyAll), 401);

    const unchanged = await stranger.agent.get(`/api/v1/agents/${theirs.body.id}/engine-config`);
    expect(unchanged.body).toMatchObject({ version: 1, config: { agent: { config: { tools: POLICY } } } });
  });
});
