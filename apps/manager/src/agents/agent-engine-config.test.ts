import { ENGINE_CONFIG_MAX_BYTES, SECRET_MAX_LENGTH, ZPublishedEngineConfig } from '@agentplane/contracts';
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
import { agentBody, createAgentThroughApi, createThroughApi, mcpServerBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

const createMcpServer = (user: SignedInUser, overrides: Record<string, unknown> = {}) =>
  createThroughApi(user, '/api/v1/mcp-servers/', mcpServerBody(overrides));

/** Header values at the secret cap, enough of them that their sealed form outweighs ENGINE_CONFIG_MAX_BYTES. */
function heavyHeaders(): Record<string, string> {
  const count = Math.ceil(ENGINE_CONFIG_MAX_BYTES / SECRET_MAX_LENGTH);
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`X-Heavy-${i}`, 'h'.repeat(SECRET_MAX_LENGTH)]));
}

describe('agent lists', () => {
  it('leave engine configs out unless asked, and keep each version', async () => {
    const user = await signUpUser(ctx.app);
    const agent = await createAgentThroughApi(user);
    const list = await user.agent.get('/api/v1/agents/');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty('engine_config');
    expect(list.body[0]).toMatchObject({ id: agent.id, engine_config_version: 1, agent: agent.agent });

    const full = await user.agent.get('/api/v1/agents/?include=engine_config');
    expect(full.body).toEqual([agent]);
    expectProblemShape(await user.agent.get('/api/v1/agents/?include=everything'), 400);
  });
});

describe('GET /api/v1/agents/{id}/engine-config', () => {
  it("answers the agent's published config with its version, to viewers too, with its secrets masked", async () => {
    const agent = await createAgentThroughApi(owner, { mcp_server_ids: [await createMcpServer(owner)] });
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    const response = await viewer.agent
      .get(`/api/v1/agents/${agent.id}/engine-config`)
      .set('x-workspace-id', owner.workspaceId);
    expect(response.status).toBe(200);
    const published = ZPublishedEngineConfig.parse(response.body);
    const masked = await owner.agent.get(`/api/v1/agents/${agent.id}?secrets=masked`);
    expect(published).toMatchObject({ agent_id: agent.id, version: 1, config: masked.body.engine_config });
    expect(response.text).not.toContain('mcp-secret-header');
  });

  it('follows a PATCH to the new version', async () => {
    const agent = await createAgentThroughApi(owner);
    const patched = await owner.agent
      .patch(`/api/v1/agents/${agent.id}`)
      .send(agentBody({}, { name: agent.name, description: 'changed', agent: { ...agent.agent, maxSteps: 3 } }));
    expect(patched.status).toBe(200);
    const response = await owner.agent.get(`/api/v1/agents/${agent.id.toUpperCase()}/engine-config`);
    expect(response.body).toMatchObject({ version: 2, config: patched.body.engine_config });
  });

  it("answers 404 for an unknown id and another workspace's agent, 400 for a bad id, 401 without a session", async () => {
    const stranger = await signUpUser(ctx.app);
    const theirs = await createAgentThroughApi(stranger);
    expectProblemShape(await owner.agent.get(`/api/v1/agents/${theirs.id}/engine-config`), 404);
    expectProblemShape(await owner.agent.get('/api/v1/agents/00000000-0000-4000-8000-000000000000/engine-config'), 404);
    expectProblemShape(await owner.agent.get('/api/v1/agents/not-a-uuid/engine-config'), 400);
    expectProblemShape(await owner.agent.get('/api/v1/agents/%ZZ/engine-config'), 400);
    expectProblemShape(await request(ctx.app).get(`/api/v1/agents/${theirs.id}/engine-config`), 401);
  });
});

describe(`the ${ENGINE_CONFIG_MAX_BYTES / 1024} KiB cap on a published engine_config`, () => {
  it('refuses to create an agent whose config would exceed it, naming engine_config, and writes nothing', async () => {
    const user = await signUpUser(ctx.app);
    const heavy = await createMcpServer(user, { headers: heavyHeaders() });
    const response = await user.agent.post('/api/v1/agents/').send(agentBody({ mcp_server_ids: [heavy] }));
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([{ path: 'engine_config', message: expect.stringMatching(/bytes/) }]);
    expect(await ctx.database.prisma.agent.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
    expect((await user.agent.get(`/api/v1/mcp-servers/${heavy}`)).body.agent_count).toBe(0);
  });

  it('refuses a resource PATCH that would push an agent over it, and rolls the resource back', async () => {
    const user = await signUpUser(ctx.app);
    const mcpId = await createMcpServer(user);
    const agent = await createAgentThroughApi(user, { mcp_server_ids: [mcpId] });
    const before = (await user.agent.get(`/api/v1/mcp-servers/${mcpId}`)).body;

    const response = await user.agent
      .patch(`/api/v1/mcp-servers/${mcpId}`)
      .send(mcpServerBody({ headers: heavyHeaders() }));
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([
      { path: 'engine_config', message: expect.stringContaining(`agent ${agent.id}`) },
    ]);
    expect((await user.agent.get(`/api/v1/mcp-servers/${mcpId}`)).body).toEqual(before);
    const published = await user.agent.get(`/api/v1/agents/${agent.id}/engine-config`);
    expect(published.body).toMatchObject({ version: 1, config: agent.engine_config });
  });
});

describe("an agent's runs.multitaskStrategy", () => {
  it('is published to the engine as given, and anything but the four strategies is a 422 naming it', async () => {
    const runs = { multitaskStrategy: 'enqueue' };
    const created = await owner.agent
      .post('/api/v1/agents/')
      .send(agentBody({}, { agent: { model: { provider: 'mock', name: 'echo' }, runs } }));
    expect(created.status).toBe(201);
    expect(created.body.engine_config.agent.config.runs).toEqual(runs);

    const refused = await owner.agent
      .post('/api/v1/agents/')
      .send(
        agentBody({}, { agent: { model: { provider: 'mock', name: 'echo' }, runs: { multitaskStrategy: 'queue' } } }),
      );
    expectProblemShape(refused, 422);
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual(['agent.runs.multitaskStrategy']);
  });
});
