import { randomUUID } from 'node:crypto';
import { ZAgent } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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

const ENGINE_URL = 'http://127.0.0.1:8001';

describe("an agent's engine_url", () => {
  it('is stored and shown on create, get and list, and is no part of the engine_config', async () => {
    const created = await owner.agent.post('/api/v1/agents/').send(agentBody({}, { engine_url: ENGINE_URL }));
    expect(created.status).toBe(201);
    const agent = ZAgent.parse(created.body);
    expect(agent.engine_url).toBe(ENGINE_URL);
    expect(JSON.stringify(agent.engine_config)).not.toContain(ENGINE_URL);
    expect((await owner.agent.get(`/api/v1/agents/${agent.id}`)).body.engine_url).toBe(ENGINE_URL);
    const listed = await owner.agent.get('/api/v1/agents/');
    expect(listed.body.find((item: { id: string }) => item.id === agent.id).engine_url).toBe(ENGINE_URL);
  });

  it('is null when left out, and a PATCH that only moves it keeps the engine_config version', async () => {
    const created = await owner.agent.post('/api/v1/agents/').send(agentBody());
    expect(created.body.engine_url).toBeNull();
    const moved = await owner.agent
      .patch(`/api/v1/agents/${created.body.id}`)
      .send(agentBody({}, { name: created.body.name, engine_url: 'https://engine.example.com/base' }));
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ engine_url: 'https://engine.example.com/base', engine_config_version: 1 });
    // PATCH is a full replacement: a body without it clears it.
    const cleared = await owner.agent
      .patch(`/api/v1/agents/${created.body.id}`)
      .send(agentBody({}, { name: created.body.name }));
    expect(cleared.body.engine_url).toBeNull();
    const row = await ctx.database.prisma.agent.findUnique({ where: { id: created.body.id } });
    expect(row?.engineUrl).toBeNull();
  });

  it('must be an http(s) origin and path with nothing hidden in it: no query, fragment or credentials (422 naming engine_url)', async () => {
    for (const engineUrl of [
      'http://manager.example/api/v1/agents/00000000-0000-4000-8000-000000000000/engine-credentials?x=',
      'https://engine.example.com/#',
      'https://user:password@engine.example.com',
      'ftp://engine.example.com',
      'not a url',
      'javascript:alert(1)',
      'http://a\u202e.example',
      7,
    ]) {
      const response = await owner.agent.post('/api/v1/agents/').send(agentBody({}, { engine_url: engineUrl }));
      expectProblemShape(response, 422);
      expect(new Set(response.body.errors.map((error: { path: string }) => error.path))).toEqual(
        new Set(['engine_url']),
      );
    }
  });

  it("is never the manager's own origin, as the request reached it, whatever the spelling (422)", async () => {
    const agent = await owner.agent.post('/api/v1/agents/').send(agentBody());
    const other = await owner.agent.post('/api/v1/agents/').send(agentBody());
    const patchAt = (engineUrl: string) =>
      owner.agent
        .patch(`/api/v1/agents/${agent.body.id}`)
        .set('Host', 'Manager.Example:8443')
        .send(agentBody({}, { name: agent.body.name, engine_url: engineUrl }));
    for (const engineUrl of [
      // The attack: the playground would POST the admin-only route, with the session cookie.
      `http://manager.example:8443/api/v1/agents/${other.body.id}/engine-credentials`,
      'https://MANAGER.example.:8443/api/v1/auth/logout-all',
    ]) {
      const response = await patchAt(engineUrl);
      expectProblemShape(response, 422);
      expect(response.body.errors).toEqual([{ path: 'engine_url', message: expect.stringMatching(/own origin/) }]);
    }
    // Nor at the issuer's origin (http://localhost:8000 by default), whatever Host a request names.
    expectProblemShape(
      await owner.agent.post('/api/v1/agents/').send(agentBody({}, { engine_url: 'http://127.0.0.1:8000/' })),
      422,
    );
    expect((await owner.agent.get(`/api/v1/agents/${agent.body.id}`)).body.engine_url).toBeNull();
    const elsewhere = await patchAt('http://manager.example:8001/engine');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.engine_url).toBe('http://manager.example:8001/engine');
  });

  it("a viewer cannot set it, and another workspace's agent is not found", async () => {
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    const agent = await owner.agent.post('/api/v1/agents/').send(agentBody());
    const update = agentBody({}, { name: agent.body.name, engine_url: ENGINE_URL });
    const asViewer = viewer.agent.patch(`/api/v1/agents/${agent.body.id}`).set('x-workspace-id', owner.workspaceId);
    expectProblemShape(await asViewer.send(update), 403);
    const stranger = await signUpUser(ctx.app);
    expectProblemShape(await stranger.agent.patch(`/api/v1/agents/${agent.body.id}`).send(update), 404);
    expectProblemShape(await owner.agent.patch(`/api/v1/agents/${randomUUID()}`).send(update), 404);
    expect((await owner.agent.get(`/api/v1/agents/${agent.body.id}`)).body.engine_url).toBeNull();
  });
});
