import { randomUUID } from 'node:crypto';
import { ZAgent } from '@agentplane/contracts';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import {
  agentBody,
  createAgentThroughApi,
  createThroughApi,
  mcpServerBody,
  observabilityBody,
  ssoBody,
  whatsappBody,
} from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
/** Issues engine credentials, which no workspace role may. */
let operator: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
  operator = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, operator);
});
afterAll(() => ctx?.close());

const publishedRow = (agentId: string) => ctx.database.prisma.engineConfig.findUnique({ where: { agentId } });

describe('agents', () => {
  it('creates an agent with its derived engine_config, published as version 1', async () => {
    const integrationId = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const mcpId = await createThroughApi(owner, '/api/v1/mcp-servers/', mcpServerBody());
    const ssoId = await createThroughApi(owner, '/api/v1/sso/', ssoBody());
    const observabilityId = await createThroughApi(owner, '/api/v1/observability/', observabilityBody());
    const body = agentBody(
      { integration_ids: [integrationId], mcp_server_ids: [mcpId], sso_id: ssoId, observability_id: observabilityId },
      {
        description: 'Answers customers',
        agent: { model: { provider: 'openai', name: 'gpt-4o-mini' }, temperature: 0.2 },
      },
    );
    const response = await owner.agent.post('/api/v1/agents/').send(body);
    expect(response.status).toBe(201);
    const agent = ZAgent.parse(response.body);
    expect(agent).toMatchObject({
      name: body.name,
      description: 'Answers customers',
      framework: 'LLM',
      agent: { model: { provider: 'openai', name: 'gpt-4o-mini' }, temperature: 0.2, maxSteps: 10 },
      resources: {
        integration_ids: [integrationId],
        mcp_server_ids: [mcpId],
        sso_id: ssoId,
        observability_id: observabilityId,
      },
      engine_config_version: 1,
    });
    expect(agent.engine_config.agent).toEqual({
      id: agent.id,
      name: body.name,
      description: 'Answers customers',
      workspace_id: owner.workspaceId,
      framework: 'LLM',
      config: agent.agent,
    });
    expect(agent.engine_config.integrations).toEqual([
      expect.objectContaining({ id: integrationId, provider: 'WHATSAPP', enabled: true }),
    ]);
    expect(agent.engine_config.mcp_servers).toEqual([
      expect.objectContaining({ name: 'everything', timeoutSeconds: 30 }),
    ]);
    expect(agent.engine_config.sso).toMatchObject({
      issuer: 'https://login.example.com/realms/acme',
      audience: 'agents',
    });
    expect(agent.engine_config.observability).toEqual({
      provider: 'OTLP',
      endpoint: 'https://otel.example.com/v1/traces',
      protocol: 'http/protobuf',
      headers: { 'X-Api-Key': 'otlp-secret-header' },
      capture_content: false,
    });

    const row = await publishedRow(agent.id);
    expect(row?.version).toBe(1n);
    expect(row?.workspaceId).toBe(owner.workspaceId);
    expect((await owner.agent.get(`/api/v1/agents/${agent.id}`)).body).toEqual(response.body);
  });

  it('lists, paginates, gets and deletes; deleting removes the published row', async () => {
    const user = await signUpUser(ctx.app);
    const [first, second] = [await createAgentThroughApi(user), await createAgentThroughApi(user)];
    const list = await user.agent.get('/api/v1/agents/?limit=1&offset=1');
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body.map((agent: { id: string }) => agent.id)).toEqual([second.id]);
    expectProblemShape(await user.agent.get('/api/v1/agents?limit=0'), 400);

    expect((await user.agent.delete(`/api/v1/agents/${first.id}`)).status).toBe(204);
    expect(await publishedRow(first.id)).toBeNull();
    expectProblemShape(await user.agent.get(`/api/v1/agents/${first.id}`), 404);
    expectProblemShape(await user.agent.delete(`/api/v1/agents/${first.id}`), 404);
    expectProblemShape(await user.agent.get('/api/v1/agents/not-a-uuid'), 400);
  });

  it('validates the framework config and the resource lists', async () => {
    const cases: [object, string][] = [
      [agentBody({}, { framework: 'LANGGRAPH' }), 'agent.graph'],
      [agentBody({}, { framework: 'CUSTOM', agent: { module: 'no-export.js' } }), 'agent.module'],
      [agentBody({}, { agent: { model: { provider: 'acme', name: 'x' } } }), 'agent.model.provider'],
      [agentBody({}, { framework: 'SWARM' }), 'framework'],
      [agentBody({ integration_ids: ['x'] }), 'resources.integration_ids[0]'],
      [agentBody({}, { name: '' }), 'name'],
      [{ ...agentBody(), secret: true }, 'secret'],
    ];
    for (const [body, path] of cases) {
      const response = await owner.agent.post('/api/v1/agents/').send(body);
      expectProblemShape(response, 422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    const id = randomUUID();
    const duplicated = await owner.agent.post('/api/v1/agents/').send(agentBody({ mcp_server_ids: [id, id] }));
    expectProblemShape(duplicated, 422);
    expect(duplicated.body.errors).toEqual([
      { path: 'resources.mcp_server_ids[1]', message: 'Duplicate MCP server id' },
    ]);
  });

  it('refuses unknown ids and ids from another workspace, naming each, and attaches nothing', async () => {
    const stranger = await signUpUser(ctx.app);
    const theirIntegration = await createThroughApi(stranger, '/api/v1/integrations/', whatsappBody());
    const theirSso = await createThroughApi(stranger, '/api/v1/sso/', ssoBody());
    const theirObservability = await createThroughApi(stranger, '/api/v1/observability/', observabilityBody());
    const mine = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const unknown = randomUUID();
    const response = await owner.agent.post('/api/v1/agents/').send(
      agentBody({
        integration_ids: [mine, theirIntegration],
        mcp_server_ids: [unknown],
        sso_id: theirSso,
        observability_id: theirObservability,
      }),
    );
    expectProblemShape(response, 422);
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([
      'resources.integration_ids[1]',
      'resources.mcp_server_ids[0]',
      'resources.sso_id',
      'resources.observability_id',
    ]);
    const unknownObservability = await owner.agent
      .post('/api/v1/agents/')
      .send(agentBody({ observability_id: unknown }));
    expectProblemShape(unknownObservability, 422);
    expect(unknownObservability.body.errors).toEqual([
      { path: 'resources.observability_id', message: `No observability config with id ${unknown} in this workspace` },
    ]);
    expect((await stranger.agent.get(`/api/v1/observability/${theirObservability}`)).body.agent_count).toBe(0);
    expect(
      await ctx.database.prisma.agentIntegration.count({ where: { integrationId: { in: [mine, theirIntegration] } } }),
    ).toBe(0);
    expect((await stranger.agent.get(`/api/v1/integrations/${theirIntegration}`)).body.agent_count).toBe(0);
  });

  it('PATCH replaces the agent and republishes with a higher version; an identical PATCH keeps the version', async () => {
    const agent = await createAgentThroughApi(owner);
    const integrationId = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const replacement = agentBody(
      { integration_ids: [integrationId] },
      { name: 'renamed', framework: 'CUSTOM', agent: { module: 'agents/custom.js:create' } },
    );
    const patched = await owner.agent.patch(`/api/v1/agents/${agent.id}`).send(replacement);
    expect(patched.status).toBe(200);
    expect(ZAgent.parse(patched.body)).toMatchObject({
      name: 'renamed',
      framework: 'CUSTOM',
      description: null,
      resources: { integration_ids: [integrationId], mcp_server_ids: [], sso_id: null },
      engine_config_version: 2,
      created_at: agent.created_at,
    });
    expect(patched.body.engine_config.agent.config).toEqual({ module: 'agents/custom.js:create' });

    const again = await owner.agent.patch(`/api/v1/agents/${agent.id}`).send(replacement);
    expect(again.body.engine_config_version).toBe(2);
    expect((await publishedRow(agent.id))?.version).toBe(2n);
    expectProblemShape(await owner.agent.patch(`/api/v1/agents/${randomUUID()}`).send(replacement), 404);
  });

  it("never shows, changes or deletes another workspace's agent, and viewers only read", async () => {
    const stranger = await signUpUser(ctx.app);
    const theirs = await createAgentThroughApi(stranger);
    expectProblemShape(await owner.agent.get(`/api/v1/agents/${theirs.id}`), 404);
    expectProblemShape(await owner.agent.patch(`/api/v1/agents/${theirs.id}`).send(agentBody()), 404);
    expectProblemShape(await owner.agent.delete(`/api/v1/agents/${theirs.id}`), 404);
    expectProblemShape(await request(ctx.app).get('/api/v1/agents/'), 401);

    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(stranger, viewer, 'viewer');
    const inTheirs = (test: request.Test) => test.set('x-workspace-id', stranger.workspaceId);
    expect((await inTheirs(viewer.agent.get(`/api/v1/agents/${theirs.id}`))).status).toBe(200);
    expectProblemShape(await inTheirs(viewer.agent.post('/api/v1/agents/').send(agentBody())), 403);
    expectProblemShape(await inTheirs(viewer.agent.patch(`/api/v1/agents/${theirs.id}`).send(agentBody())), 403);
    expectProblemShape(await inTheirs(viewer.agent.delete(`/api/v1/agents/${theirs.id}`)), 403);
  });
});

describe('the publish protocol', () => {
  it('gives every agent that uses a patched integration the new values and a higher version, atomically', async () => {
    const user = await signUpUser(ctx.app);
    const integrationId = await createThroughApi(user, '/api/v1/integrations/', whatsappBody());
    const agents = [
      await createAgentThroughApi(user, { integration_ids: [integrationId] }),
      await createAgentThroughApi(user, { integration_ids: [integrationId] }),
    ];
    const bystander = await createAgentThroughApi(user);

    // One statement per look, so each look is a single snapshot of the resource and both configs.
    const reader = await ctx.database.connectClient();
    const looks: { resource: string; configs: string[] }[] = [];
    let patching = true;
    const poll = (async () => {
      while (patching) {
        const { rows } = await reader.query<{ resource: string; configs: string[] }>(
          `SELECT i.config->>'phoneNumberId' AS resource,
                  array(SELECT e.config->'integrations'->0->'config'->>'phoneNumberId'
                        FROM engine_configs e WHERE e.agent_id = ANY($2::uuid[]) ORDER BY e.agent_id) AS configs
           FROM integrations i WHERE i.id = $1`,
          [integrationId, agents.map((agent) => agent.id)],
        );
        if (rows[0]) looks.push(rows[0]);
      }
    })();

    for (let round = 1; round <= 10; round++) {
      const phoneNumberId = `10655500${round.toString().padStart(2, '0')}`;
      const patched = await user.agent
        .patch(`/api/v1/integrations/${integrationId}`)
        .send(whatsappBody({ config: { accessToken: 'a', phoneNumberId, verifyToken: 'v' } }));
      expect(patched.status).toBe(200);
    }
    patching = false;
    await poll;
    await reader.end();

    expect(looks.length).toBeGreaterThan(10);
    for (const look of looks) expect(look.configs).toEqual([look.resource, look.resource]);
    for (const agent of agents) {
      const row = await publishedRow(agent.id);
      expect(row?.version).toBe(11n);
      const read = ZAgent.parse((await user.agent.get(`/api/v1/agents/${agent.id}`)).body);
      expect(read.engine_config.integrations[0]?.config).toMatchObject({ phoneNumberId: '1065550010' });
      expect(read.engine_config_version).toBe(11);
    }
    expect((await publishedRow(bystander.id))?.version).toBe(1n);
  });

  it('a PATCH that changes nothing in the derived configs keeps their versions', async () => {
    const user = await signUpUser(ctx.app);
    const body = mcpServerBody();
    const mcpId = await createThroughApi(user, '/api/v1/mcp-servers/', body);
    const agent = await createAgentThroughApi(user, { mcp_server_ids: [mcpId] });
    // Only the resource's own name changes; the engine config carries the typed object, not the name.
    const renamed = await user.agent.patch(`/api/v1/mcp-servers/${mcpId}`).send({ ...body, name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect((await publishedRow(agent.id))?.version).toBe(1n);
  });

  it("NOTIFYs the agent's own config channel at commit, which no other agent's engine role can hear", async () => {
    const user = await signUpUser(ctx.app);
    const agent = await createAgentThroughApi(user);
    const marker = await createAgentThroughApi(user);
    const channelOf = async (agentId: string) =>
      (await ctx.database.prisma.engineChannel.findUniqueOrThrow({ where: { agentId } })).configChannel;
    const [agentChannel, markerChannel] = [await channelOf(agent.id), await channelOf(marker.id)];
    const listener = await ctx.database.connectClient();
    const heard: string[] = [];
    listener.on('notification', (message) =>
      heard.push(`${message.channel === agentChannel ? 'agent' : 'marker'}:${message.payload}`),
    );
    await listener.query(`LISTEN ${agentChannel}`);
    await listener.query(`LISTEN ${markerChannel}`);
    // Another tenant's engine, listening where engines once all heard every agent's id.
    const stranger = await signUpUser(ctx.app);
    const theirs = await createAgentThroughApi(stranger);
    const credentials = await operator.agent.post(`/api/v1/agents/${theirs.id}/engine-credentials`);
    const eavesdropper = await ctx.database.connectClient({ url: credentials.body.database_url });
    const overheard: string[] = [];
    eavesdropper.on('notification', (message) => overheard.push(message.payload ?? ''));
    await eavesdropper.query('LISTEN engine_config_changed');
    const own = await eavesdropper.query<{ config_channel: string }>('SELECT config_channel FROM engine_channels');
    expect(own.rows).toEqual([{ config_channel: await channelOf(theirs.id) }]);
    await eavesdropper.query(`LISTEN ${own.rows[0]?.config_channel}`);

    await user.agent.patch(`/api/v1/agents/${agent.id}`).send(agentBody({}, { name: 'changed' }));
    // A refused write publishes nothing. Notifications arrive in commit order, so once the marker
    // agent's is heard, anything the refused write had sent would have been heard before it.
    const refused = await user.agent.post('/api/v1/agents/').send(agentBody({ integration_ids: [randomUUID()] }));
    expect(refused.status).toBe(422);
    await user.agent.delete(`/api/v1/agents/${agent.id}`);
    await user.agent.patch(`/api/v1/agents/${marker.id}`).send(agentBody({}, { name: 'changed' }));
    await waitUntil(() => heard.includes('marker:config'), { what: "the marker agent's NOTIFY" });
    expect(heard).toEqual(['agent:config', 'agent:config', 'marker:config']);

    await stranger.agent.patch(`/api/v1/agents/${theirs.id}`).send(agentBody({}, { name: 'changed' }));
    await waitUntil(() => overheard.length > 0, { what: "the eavesdropper's own agent's NOTIFY" });
    expect(overheard).toEqual(['config']);
  });
});

describe('races', () => {
  it('20 identical PATCHes of one agent, sent at once, all succeed and leave one set of links', async () => {
    const user = await signUpUser(ctx.app);
    const integrationIds = [
      await createThroughApi(user, '/api/v1/integrations/', whatsappBody()),
      await createThroughApi(user, '/api/v1/integrations/', whatsappBody()),
    ];
    const mcpId = await createThroughApi(user, '/api/v1/mcp-servers/', mcpServerBody());
    const agent = await createAgentThroughApi(user);
    const body = agentBody({ integration_ids: integrationIds, mcp_server_ids: [mcpId] }, { name: agent.name });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => user.agent.patch(`/api/v1/agents/${agent.id}`).send(body)),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(await ctx.database.prisma.agentIntegration.count({ where: { agentId: agent.id } })).toBe(2);
    expect(await ctx.database.prisma.agentMcpServer.count({ where: { agentId: agent.id } })).toBe(1);
    // The first PATCH changed the config; the 19 that follow it change nothing, so the version moved once.
    expect((await publishedRow(agent.id))?.version).toBe(2n);
  });

  // A DELETE of a resource racing an agent write that attaches it: resources/resources.test.ts, for each kind.

  it('a PATCH of a resource racing an agent write that attaches it leaves the agent with the new values', async () => {
    const user = await signUpUser(ctx.app);
    for (let round = 0; round < 20; round++) {
      const mcpId = await createThroughApi(user, '/api/v1/mcp-servers/', mcpServerBody({ timeoutSeconds: 1 }));
      const agent = await createAgentThroughApi(user);
      const [patchedResource, patchedAgent] = await Promise.all([
        user.agent.patch(`/api/v1/mcp-servers/${mcpId}`).send(mcpServerBody({ timeoutSeconds: 2 })),
        user.agent
          .patch(`/api/v1/agents/${agent.id}`)
          .send(agentBody({ mcp_server_ids: [mcpId] }, { name: agent.name })),
      ]);
      expect([patchedResource.status, patchedAgent.status]).toEqual([200, 200]);
      const read = ZAgent.parse((await user.agent.get(`/api/v1/agents/${agent.id}`)).body);
      expect(read.engine_config.mcp_servers[0]?.timeoutSeconds).toBe(2);
    }
  });
});
