// The common pattern, run for each managed resource kind: the same behaviour is owed by all of them.
import { randomUUID } from 'node:crypto';
import {
  type TAgentResources,
  type TEngineConfig,
  ZAgent,
  ZGuardrail,
  ZIntegration,
  ZMcpServer,
  ZObservability,
  ZSso,
} from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { z } from 'zod';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import {
  agentBody,
  guardrailBody,
  mcpServerBody,
  observabilityBody,
  ssoBody,
  whatsappBody,
} from '../testing/resource-fixtures.js';

type KindCase = {
  segment: string;
  key: string;
  body: (overrides?: Record<string, unknown>) => Record<string, unknown>;
  schema: z.ZodType;
  /** A change to the typed object, for PATCH. */
  change: Record<string, unknown>;
  defaults: Record<string, unknown>;
  link: (id: string) => Record<string, unknown>;
  /** The ids of this kind an agent references. */
  linked: (resources: TAgentResources) => (string | null)[];
  /** This kind's part of an engine config, when the agent references one. */
  published: (config: TEngineConfig) => object | null | undefined;
};

const KINDS: KindCase[] = [
  {
    segment: 'integrations',
    key: 'integration',
    body: whatsappBody,
    schema: ZIntegration,
    change: { enabled: false },
    defaults: { enabled: true, config: expect.objectContaining({ apiVersion: 'v21.0' }) },
    link: (id) => ({ integration_ids: [id] }),
    linked: (resources) => resources.integration_ids,
    published: (config) => config.integrations[0],
  },
  {
    segment: 'mcp-servers',
    key: 'mcp_server',
    body: mcpServerBody,
    schema: ZMcpServer,
    change: { timeoutSeconds: 2.5 },
    defaults: {
      transport: 'streamable_http',
      args: [],
      env: {},
      encoding: 'utf-8',
      encodingErrorHandler: 'strict',
      timeoutSeconds: 30,
      sseReadTimeoutSeconds: 300,
      terminateOnClose: true,
      sessionKwargs: {},
    },
    link: (id) => ({ mcp_server_ids: [id] }),
    linked: (resources) => resources.mcp_server_ids,
    published: (config) => config.mcp_servers[0],
  },
  {
    segment: 'sso',
    key: 'sso',
    body: ssoBody,
    schema: ZSso,
    change: { audience: 'other-audience' },
    defaults: { enabled: true, algorithms: ['RS256', 'ES256'] },
    link: (id) => ({ sso_id: id }),
    linked: (resources) => [resources.sso_id],
    published: (config) => config.sso,
  },
  {
    segment: 'observability',
    key: 'observability',
    body: observabilityBody,
    schema: ZObservability,
    change: { protocol: 'http/json' },
    defaults: { protocol: 'http/protobuf', capture_content: false },
    link: (id) => ({ observability_id: id }),
    linked: (resources) => [resources.observability_id],
    published: (config) => config.observability,
  },
  {
    segment: 'guardrails',
    key: 'guardrail',
    body: guardrailBody,
    schema: ZGuardrail,
    change: {
      description: 'Changed',
      rules: [{ name: 'long', kind: 'max_length', max_chars: 500, position: 'input', action: 'block' }],
    },
    defaults: {
      description: null,
      rules: [expect.objectContaining({ phrases: ['insider tip'], regexes: [], case_sensitive: false })],
    },
    link: (id) => ({ guardrail_ids: [id] }),
    linked: (resources) => resources.guardrail_ids,
    published: (config) => config.guardrails[0],
  },
];

let ctx: ManagerTestContext;
let owner: SignedInUser;
let stranger: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  [owner, stranger] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app)]);
});
afterAll(() => ctx?.close());

describe.each(KINDS)('/api/v1/$segment', (kind) => {
  const collection = `/api/v1/${kind.segment}/`;
  const item = (id: string) => `/api/v1/${kind.segment}/${id}`;
  const create = async (user = owner, overrides?: Record<string, unknown>) => {
    const response = await user.agent.post(collection).send(kind.body(overrides));
    expect(response.status).toBe(201);
    return kind.schema.parse(response.body) as { id: string; name: string; agent_count: number } & Record<
      string,
      unknown
    >;
  };

  it('creates with 201, the defaults filled in and agent_count 0', async () => {
    const body = kind.body();
    const response = await owner.agent.post(collection).send(body);
    expect(response.status).toBe(201);
    const created = kind.schema.parse(response.body) as Record<string, unknown>;
    expect(created).toMatchObject({ name: body.name, agent_count: 0 });
    expect(created[kind.key]).toMatchObject(kind.defaults);
    expect(created.created_at).toBe(created.updated_at);
  });

  it('answers both with and without the trailing slash', async () => {
    expect((await owner.agent.get(collection.slice(0, -1))).status).toBe(200);
    expect((await owner.agent.post(collection.slice(0, -1)).send(kind.body())).status).toBe(201);
  });

  it('gets by id, and answers 404 to an unknown id and 400 to a malformed one', async () => {
    const created = await create();
    const got = await owner.agent.get(item(created.id));
    expect(got.status).toBe(200);
    expect(kind.schema.parse(got.body)).toEqual(created);
    expectProblemShape(await owner.agent.get(item(randomUUID())), 404);
    expectProblemShape(await owner.agent.get(item('not-a-uuid')), 400);
  });

  it('lists oldest first with X-Total-Count and honours limit and offset', async () => {
    const fresh = await signUpUser(ctx.app);
    const made = [await create(fresh), await create(fresh), await create(fresh)];
    const all = await fresh.agent.get(collection);
    expect(all.status).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.body.map((resource: { id: string }) => resource.id)).toEqual(made.map((resource) => resource.id));

    const second = await fresh.agent.get(`${collection}?limit=1&offset=1`);
    expect(second.body.map((resource: { id: string }) => resource.id)).toEqual([made[1]?.id]);
    expect(second.headers['x-total-count']).toBe('3');
    const pastEnd = await fresh.agent.get(`${collection}?offset=3`);
    expect(pastEnd.status).toBe(200);
    expect(pastEnd.body).toEqual([]);
    expect((await fresh.agent.get(`${collection}?limit=1000`)).status).toBe(200);
  });

  it.each(['limit=0', 'limit=1001', 'offset=-1', 'limit=1.5', 'limit=abc', 'offset=x'])(
    'answers 400 to ?%s',
    async (query) => {
      expectProblemShape(await owner.agent.get(`${collection}?${query}`), 400);
    },
  );

  it('PATCH replaces the resource, keeps created_at, and answers 422 without name or typed object', async () => {
    const created = await create();
    const replacement = kind.body(kind.change);
    const patched = await owner.agent.patch(item(created.id)).send(replacement);
    expect(patched.status).toBe(200);
    const body = kind.schema.parse(patched.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: created.id,
      name: replacement.name,
      created_at: created.created_at,
      agent_count: 0,
    });
    expect(body[kind.key]).toMatchObject(kind.change);
    expect(Date.parse(body.updated_at as string)).toBeGreaterThan(Date.parse(created.created_at as string));

    const withoutName = await owner.agent.patch(item(created.id)).send({ [kind.key]: replacement[kind.key] });
    expectProblemShape(withoutName, 422);
    expect(withoutName.body.errors).toEqual([{ path: 'name', message: expect.any(String) }]);
    const withoutTyped = await owner.agent.patch(item(created.id)).send({ name: 'x' });
    expectProblemShape(withoutTyped, 422);
    expect(withoutTyped.body.errors.map((error: { path: string }) => error.path)).toEqual([kind.key]);
    expectProblemShape(await owner.agent.patch(item(randomUUID())).send(replacement), 404);
  });

  it('deletes with 204, then answers 404', async () => {
    const created = await create();
    const deleted = await owner.agent.delete(item(created.id));
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectProblemShape(await owner.agent.get(item(created.id)), 404);
    expectProblemShape(await owner.agent.delete(item(created.id)), 404);
  });

  it('rejects an unknown field with 422 naming it', async () => {
    const response = await owner.agent.post(collection).send({ ...kind.body(), colour: 'blue' });
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([{ path: 'colour', message: expect.stringContaining('colour') }]);
  });

  it('counts the agents that use it in create, get, list and PATCH responses, and refuses to delete it while used', async () => {
    const fresh = await signUpUser(ctx.app);
    const created = await create(fresh);
    expect(created.agent_count).toBe(0);
    const first = await fresh.agent.post('/api/v1/agents/').send(agentBody(kind.link(created.id)));
    const second = await fresh.agent.post('/api/v1/agents/').send(agentBody(kind.link(created.id)));
    expect([first.status, second.status]).toEqual([201, 201]);

    expect((await fresh.agent.get(item(created.id))).body.agent_count).toBe(2);
    expect((await fresh.agent.get(collection)).body[0].agent_count).toBe(2);
    expect((await fresh.agent.patch(item(created.id)).send(kind.body(kind.change))).body.agent_count).toBe(2);

    const refused = await fresh.agent.delete(item(created.id));
    expectProblemShape(refused, 409);
    // The console shows it as is: it names the agents to detach.
    expect(refused.body.detail).toContain(
      `used by 2 agents (${JSON.stringify(first.body.name)}, ${JSON.stringify(second.body.name)}); detach it from them first.`,
    );

    await fresh.agent.delete(`/api/v1/agents/${first.body.id}`);
    expect((await fresh.agent.get(item(created.id))).body.agent_count).toBe(1);
    const detached = await fresh.agent
      .patch(`/api/v1/agents/${second.body.id}`)
      .send({ ...agentBody(), name: second.body.name });
    expect(detached.status).toBe(200);
    expect((await fresh.agent.get(item(created.id))).body.agent_count).toBe(0);
    expect((await fresh.agent.delete(item(created.id))).status).toBe(204);
  });

  it("never shows, changes or deletes another workspace's resource", async () => {
    const theirs = await create(stranger);
    expectProblemShape(await owner.agent.get(item(theirs.id)), 404);
    expectProblemShape(await owner.agent.patch(item(theirs.id)).send(kind.body()), 404);
    expectProblemShape(await owner.agent.delete(item(theirs.id)), 404);
    const listed = await owner.agent.get(`${collection}?limit=1000`);
    expect(listed.body.map((resource: { id: string }) => resource.id)).not.toContain(theirs.id);
    // Naming their workspace in the header does not help either.
    expectProblemShape(await owner.agent.get(item(theirs.id)).set('x-workspace-id', stranger.workspaceId), 403);
    expect((await stranger.agent.get(item(theirs.id))).status).toBe(200);
  });

  it('needs a session (401) and a valid x-workspace-id (400 malformed, 403 not a member)', async () => {
    expectProblemShape(await request(ctx.app).get(collection), 401);
    expectProblemShape(await request(ctx.app).post(collection).send(kind.body()), 401);
    expectProblemShape(await owner.agent.get(collection).set('x-workspace-id', 'nope'), 400);
    expectProblemShape(await owner.agent.get(collection).set('x-workspace-id', randomUUID()), 403);
  });

  it('lets a viewer read but not write (403)', async () => {
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    const created = await create();
    const asViewer = (test: request.Test) => test.set('x-workspace-id', owner.workspaceId);
    expect((await asViewer(viewer.agent.get(item(created.id)))).status).toBe(200);
    expect((await asViewer(viewer.agent.get(collection))).status).toBe(200);
    expectProblemShape(await asViewer(viewer.agent.post(collection).send(kind.body())), 403);
    expectProblemShape(await asViewer(viewer.agent.patch(item(created.id)).send(kind.body())), 403);
    expectProblemShape(await asViewer(viewer.agent.delete(item(created.id))), 403);

    const member = await signUpUser(ctx.app);
    await addToWorkspace(owner, member, 'member');
    expect(
      (await member.agent.post(collection).set('x-workspace-id', owner.workspaceId).send(kind.body())).status,
    ).toBe(201);
  });

  it('PATCH republishes the engine config of every agent using it: the change is in it and its version moves', async () => {
    const fresh = await signUpUser(ctx.app);
    const created = await create(fresh);
    const agent = await fresh.agent.post('/api/v1/agents/').send(agentBody(kind.link(created.id)));
    const bystander = await fresh.agent.post('/api/v1/agents/').send(agentBody());
    expect(agent.body.engine_config_version).toBe(1);
    expect(kind.published(ZAgent.parse(agent.body).engine_config)).toBeTruthy();

    expect((await fresh.agent.patch(item(created.id)).send(kind.body(kind.change))).status).toBe(200);
    const read = ZAgent.parse((await fresh.agent.get(`/api/v1/agents/${agent.body.id}`)).body);
    expect(read.engine_config_version).toBe(2);
    expect(kind.published(read.engine_config)).toMatchObject(kind.change);
    const row = await ctx.database.prisma.engineConfig.findUnique({ where: { agentId: agent.body.id } });
    expect(row?.version).toBe(2n);
    expect((await fresh.agent.get(`/api/v1/agents/${bystander.body.id}`)).body.engine_config_version).toBe(1);
  });

  it('a DELETE racing a PATCH of an agent that attaches it never leaves a dangling reference (50 rounds)', async () => {
    const fresh = await signUpUser(ctx.app);
    for (let round = 0; round < 50; round++) {
      const created = await create(fresh);
      const agent = await fresh.agent.post('/api/v1/agents/').send(agentBody());
      const [deleted, patched] = await Promise.all([
        fresh.agent.delete(item(created.id)),
        fresh.agent
          .patch(`/api/v1/agents/${agent.body.id}`)
          .send(agentBody(kind.link(created.id), { name: agent.body.name })),
      ]);
      const outcome = `${deleted.status}/${patched.status}`;
      expect(['204/422', '409/200']).toContain(outcome);

      const exists = (await fresh.agent.get(item(created.id))).status === 200;
      const read = ZAgent.parse((await fresh.agent.get(`/api/v1/agents/${agent.body.id}`)).body);
      expect(exists).toBe(outcome === '409/200');
      expect(kind.linked(read.resources).includes(created.id)).toBe(exists);
      expect(Boolean(kind.published(read.engine_config))).toBe(exists);
    }
  });
});
