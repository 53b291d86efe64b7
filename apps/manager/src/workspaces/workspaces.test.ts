import { ZMe, ZMember, ZWorkspace } from '@agentplane/contracts';
import { createAgentKeyring, createSecretBox } from '@agentplane/db';
import {
  makeAgent,
  makeIntegration,
  makeMcpServer,
  makeObservabilityConfig,
  makeSsoConfig,
} from '@agentplane/db/testing';
import { AppError } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type request from 'supertest';
import { z } from 'zod';
import { inviteMember } from '../invitations/invitation-service.js';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { updateWorkspace } from './workspace-service.js';

const ZWorkspaceList = z.array(ZWorkspace);
const UNKNOWN_ID = '5b2c8f8e-8d6a-4d5e-9c1e-7a7f2b9e0c11';

let ctx: ManagerTestContext;
let alice: SignedInUser;
let bob: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  alice = await signUpUser(ctx.app, { name: 'Alice' });
  bob = await signUpUser(ctx.app, { name: 'Bob Secretname' });
});
afterAll(() => ctx?.close());

async function createWorkspace(user: SignedInUser, name: string) {
  const response = await user.agent.post('/api/v1/workspaces/').send({ name });
  expect(response.status).toBe(201);
  return ZWorkspace.parse(response.body);
}

/** The problem body without its per-request id, to compare two answers. */
function problemBody(response: request.Response) {
  const { request_id: _ignored, ...rest } = response.body as Record<string, unknown>;
  return rest;
}

function errorPaths(response: request.Response): string[] {
  return (response.body.errors as { path: string }[]).map((error) => error.path);
}

describe('POST /workspaces/', () => {
  it('creates a workspace with a trimmed name and makes the creator its only member, as owner (201)', async () => {
    const response = await alice.agent.post('/api/v1/workspaces/').send({ name: '  Acme  ' });
    expect(response.status).toBe(201);
    const workspace = ZWorkspace.parse(response.body);
    expect(workspace).toMatchObject({ name: 'Acme', role: 'owner' });

    const memberships = await ctx.database.prisma.membership.findMany({ where: { workspaceId: workspace.id } });
    expect(memberships.map(({ userId, role }) => ({ userId, role }))).toEqual([
      { userId: alice.userId, role: 'owner' },
    ]);
    const fetched = await alice.agent.get(`/api/v1/workspaces/${workspace.id}`);
    expect(ZWorkspace.parse(fetched.body)).toEqual(workspace);
  });

  it('answers on /workspaces without the trailing slash too', async () => {
    const response = await alice.agent.post('/api/v1/workspaces').send({ name: 'No slash' });
    expect(response.status).toBe(201);
    expect(ZWorkspace.parse(response.body)).toMatchObject({ name: 'No slash', role: 'owner' });
  });

  it('when the name is missing, blank or too long, it answers 422 naming name and creates nothing', async () => {
    const before = await ctx.database.prisma.workspace.count();
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 42 }]) {
      const response = await alice.agent.post('/api/v1/workspaces/').send(body);
      expectProblemShape(response, 422);
      expect(errorPaths(response)).toEqual(['name']);
    }
    expect(await ctx.database.prisma.workspace.count()).toBe(before);
  });

  it('when the body has an unknown field, it answers 422 naming that field and creates nothing', async () => {
    const before = await ctx.database.prisma.workspace.count();
    const response = await alice.agent.post('/api/v1/workspaces/').send({ name: 'Sneaky', owner_id: bob.userId });
    expectProblemShape(response, 422);
    expect(errorPaths(response)).toEqual(['owner_id']);
    expect(await ctx.database.prisma.workspace.count()).toBe(before);
  });
});

describe('GET /workspaces/', () => {
  let carol: SignedInUser;
  let expected: string[];
  beforeAll(async () => {
    carol = await signUpUser(ctx.app, { name: 'Carol' });
    const second = await createWorkspace(carol, 'Carol two');
    const third = await createWorkspace(carol, 'Carol three');
    // Bob's workspace is older than all of Carol's, so it lists first although she joined it last.
    await addToWorkspace(bob, carol, 'viewer');
    expected = [bob.workspaceId, carol.workspaceId, second.id, third.id];
  });

  it("lists only the caller's workspaces, oldest first, with the caller's role in each", async () => {
    const response = await carol.agent.get('/api/v1/workspaces/');
    expect(response.status).toBe(200);
    const list = ZWorkspaceList.parse(response.body);
    expect(list.map((workspace) => workspace.id)).toEqual(expected);
    expect(list.map((workspace) => workspace.role)).toEqual(['viewer', 'owner', 'owner', 'owner']);
    expect(response.headers['x-total-count']).toBe('4');
  });

  it('answers the same on /workspaces and /workspaces/', async () => {
    const [withSlash, withoutSlash] = await Promise.all([
      carol.agent.get('/api/v1/workspaces/'),
      carol.agent.get('/api/v1/workspaces'),
    ]);
    expect(withoutSlash.status).toBe(200);
    expect(ZWorkspaceList.parse(withoutSlash.body)).toEqual(ZWorkspaceList.parse(withSlash.body));
    expect(withoutSlash.headers['x-total-count']).toBe('4');
  });

  it.each([
    ['limit=1', [0]],
    ['limit=2&offset=1', [1, 2]],
    ['offset=3', [3]],
    ['offset=4', []],
    ['offset=1000000', []],
    ['limit=1000', [0, 1, 2, 3]],
  ])('with %s it answers that page, and X-Total-Count still counts all four', async (query, indexes) => {
    const response = await carol.agent.get(`/api/v1/workspaces/?${query}`);
    expect(response.status).toBe(200);
    expect(ZWorkspaceList.parse(response.body).map((workspace) => workspace.id)).toEqual(
      indexes.map((index) => expected[index]),
    );
    expect(response.headers['x-total-count']).toBe('4');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=0.5', 'offset'],
  ])('with %s it answers 400 naming %s', async (query, field) => {
    const response = await carol.agent.get(`/api/v1/workspaces/?${query}`);
    expectProblemShape(response, 400);
    expect(errorPaths(response)).toEqual([field]);
  });
});

describe('GET /workspaces/:id', () => {
  it("answers the workspace with the caller's own role in it", async () => {
    const dave = await signUpUser(ctx.app);
    await addToWorkspace(bob, dave, 'member');
    const asMember = await dave.agent.get(`/api/v1/workspaces/${bob.workspaceId}`);
    expect(asMember.status).toBe(200);
    expect(ZWorkspace.parse(asMember.body)).toMatchObject({ id: bob.workspaceId, role: 'member' });
    const asOwner = await bob.agent.get(`/api/v1/workspaces/${bob.workspaceId}`);
    expect(ZWorkspace.parse(asOwner.body)).toEqual({ ...asMember.body, role: 'owner' });
  });
});

describe('PATCH /workspaces/:id', () => {
  it('renames the workspace (200), keeping created_at and moving updated_at', async () => {
    const original = await createWorkspace(alice, 'Old name');
    const response = await alice.agent.patch(`/api/v1/workspaces/${original.id}`).send({ name: ' New name ' });
    expect(response.status).toBe(200);
    const renamed = ZWorkspace.parse(response.body);
    expect(renamed).toMatchObject({
      id: original.id,
      name: 'New name',
      role: 'owner',
      created_at: original.created_at,
    });
    expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(original.updated_at));
    const fetched = await alice.agent.get(`/api/v1/workspaces/${original.id}`);
    expect(ZWorkspace.parse(fetched.body)).toEqual(renamed);
  });

  it('when the name is missing, it answers 422 naming name and keeps the old name', async () => {
    const workspace = await createWorkspace(alice, 'Keep me');
    const response = await alice.agent.patch(`/api/v1/workspaces/${workspace.id}`).send({});
    expectProblemShape(response, 422);
    expect(errorPaths(response)).toEqual(['name']);
    const row = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(row.name).toBe('Keep me');
  });

  it('when the body has an unknown field, it answers 422 naming it and does not rename', async () => {
    const workspace = await createWorkspace(alice, 'Keep me too');
    const response = await alice.agent
      .patch(`/api/v1/workspaces/${workspace.id}`)
      .send({ name: 'Renamed anyway?', color: 'red' });
    expectProblemShape(response, 422);
    expect(errorPaths(response)).toEqual(['color']);
    const row = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(row.name).toBe('Keep me too');
  });
});

describe('DELETE /workspaces/:id', () => {
  it('when the owner deletes it, it answers 204, then 404 to every later request', async () => {
    const workspace = await createWorkspace(alice, 'Short lived');
    const response = await alice.agent.delete(`/api/v1/workspaces/${workspace.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectProblemShape(await alice.agent.get(`/api/v1/workspaces/${workspace.id}`), 404);
    expectProblemShape(await alice.agent.delete(`/api/v1/workspaces/${workspace.id}`), 404);
    const list = ZWorkspaceList.parse((await alice.agent.get('/api/v1/workspaces/?limit=1000')).body);
    expect(list.map((item) => item.id)).not.toContain(workspace.id);
  });

  it('deletes its memberships, agents, resources, links and engine configs, and nothing of other workspaces', async () => {
    const db = ctx.database.prisma;
    const erin = await signUpUser(ctx.app);
    const doomed = await createWorkspace(erin, 'Doomed');
    const member = await signUpUser(ctx.app);
    await addToWorkspace(erin, member, 'admin', doomed.id);

    // A full workspace: an agent that references every kind of resource, with its published config.
    const [integration, mcpServer, sso, observability] = await Promise.all([
      makeIntegration(db, doomed.id),
      makeMcpServer(db, doomed.id),
      makeSsoConfig(db, doomed.id),
      makeObservabilityConfig(db, doomed.id),
    ]);
    const agent = await makeAgent(db, doomed.id, { ssoId: sso.id, observabilityId: observability.id });
    await db.agentIntegration.create({ data: { agentId: agent.id, integrationId: integration.id } });
    await db.agentMcpServer.create({ data: { agentId: agent.id, mcpServerId: mcpServer.id } });
    await db.engineConfig.create({ data: { agentId: agent.id, workspaceId: doomed.id, version: 1n, config: {} } });
    // Erin's personal workspace, with a resource of its own, must survive.
    const survivor = await makeIntegration(db, erin.workspaceId);

    expect((await member.agent.get(`/api/v1/workspaces/${doomed.id}`)).status).toBe(200);
    const response = await erin.agent.delete(`/api/v1/workspaces/${doomed.id}`);
    expect(response.status).toBe(204);

    const where = { workspaceId: doomed.id };
    expect(
      await Promise.all([
        db.workspace.count({ where: { id: doomed.id } }),
        db.membership.count({ where }),
        db.agent.count({ where }),
        db.integration.count({ where }),
        db.mcpServer.count({ where }),
        db.ssoConfig.count({ where }),
        db.observabilityConfig.count({ where }),
        db.engineConfig.count({ where }),
        db.agentIntegration.count({ where: { agentId: agent.id } }),
        db.agentMcpServer.count({ where: { agentId: agent.id } }),
      ]),
    ).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await db.integration.count({ where: { id: survivor.id } })).toBe(1);
    expect(await db.user.count({ where: { id: { in: [erin.userId, member.userId] } } })).toBe(2);

    // The former member's access is gone with it.
    expectProblemShape(await member.agent.get(`/api/v1/workspaces/${doomed.id}`), 404);
    expectProblemShape(await member.agent.get(`/api/v1/workspaces/${doomed.id}/members/`), 404);
    const me = ZMe.parse((await member.agent.get('/api/v1/auth/me')).body);
    expect(me.workspaces.map((workspace) => workspace.id)).toEqual([member.workspaceId]);
  });
});

const ROUTES = [
  ['GET', (id: string) => `/workspaces/${id}`, undefined],
  ['PATCH', (id: string) => `/workspaces/${id}`, { name: 'Hijacked' }],
  ['DELETE', (id: string) => `/workspaces/${id}`, undefined],
  ['GET', (id: string) => `/workspaces/${id}/members/`, undefined],
  ['POST', (id: string) => `/workspaces/${id}/members/`, { email: 'placeholder', role: 'owner' }],
  ['PATCH', (id: string, userId: string) => `/workspaces/${id}/members/${userId}`, { role: 'viewer' }],
  ['DELETE', (id: string, userId: string) => `/workspaces/${id}/members/${userId}`, undefined],
] as const;

function send(user: SignedInUser, method: string, path: string, body?: object) {
  const url = `/api/v1${path}`;
  const pending =
    method === 'GET'
      ? user.agent.get(url)
      : method === 'POST'
        ? user.agent.post(url)
        : method === 'PATCH'
          ? user.agent.patch(url)
          : user.agent.delete(url);
  return body === undefined ? pending : pending.send(body);
}

describe('path ids', () => {
  it.each(ROUTES.map(([method, path, body]) => [`${method} ${path(':id', ':user_id')}`, method, path, body] as const))(
    '%s with a workspace id that is not a UUID answers 400',
    async (_label, method, path, body) => {
      const response = await send(alice, method, path('not-a-uuid', bob.userId), body);
      expectProblemShape(response, 400);
    },
  );

  it.each([
    ['PATCH', { role: 'viewer' }],
    ['DELETE', undefined],
  ] as const)(
    '%s /workspaces/:id/members/:user_id with a user_id that is not a UUID answers 400 naming it',
    async (method, body) => {
      const response = await send(alice, method, `/workspaces/${alice.workspaceId}/members/nobody`, body);
      expectProblemShape(response, 400);
      expect(errorPaths(response)).toEqual(['user_id']);
    },
  );

  it.each(ROUTES.map(([method, path, body]) => [`${method} ${path(':id', ':user_id')}`, method, path, body] as const))(
    '%s with an unknown workspace UUID answers 404',
    async (_label, method, path, body) => {
      const response = await send(alice, method, path(UNKNOWN_ID, alice.userId), body);
      expectProblemShape(response, 404);
    },
  );

  it.each([
    ['PATCH', { role: 'viewer' }],
    ['DELETE', undefined],
  ] as const)(
    '%s /workspaces/:id/members/:user_id for a user who is not a member answers 404',
    async (method, body) => {
      const response = await send(alice, method, `/workspaces/${alice.workspaceId}/members/${bob.userId}`, body);
      expectProblemShape(response, 404);
    },
  );
});

describe("isolation: another user's workspace does not exist for you", () => {
  it.each(ROUTES.map(([method, path, body]) => [`${method} ${path(':id', ':user_id')}`, method, path, body] as const))(
    '%s on B’s workspace answers A the same 404 as an unknown id, without any of B’s data',
    async (_label, method, path, body) => {
      const sent = body && 'email' in body ? { ...body, email: alice.email } : body;
      const response = await send(alice, method, path(bob.workspaceId, bob.userId), sent);
      expectProblemShape(response, 404);
      const unknown = await send(alice, method, path(UNKNOWN_ID, bob.userId), sent);
      expect(problemBody(response)).toEqual(problemBody(unknown));
      for (const secret of [bob.workspaceId, bob.userId, bob.email, 'Secretname']) {
        expect(response.text).not.toContain(secret);
      }
    },
  );

  it("leaves B's workspace exactly as it was, and never lists it for A", async () => {
    const row = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: bob.workspaceId } });
    expect(row.name).toBe("Bob Secretname's workspace");
    const members = await bob.agent.get(`/api/v1/workspaces/${bob.workspaceId}/members/?limit=1000`);
    const roles = z.array(ZMember).parse(members.body);
    expect(roles.find((member) => member.user_id === bob.userId)?.role).toBe('owner');
    expect(roles.map((member) => member.user_id)).not.toContain(alice.userId);

    const list = ZWorkspaceList.parse((await alice.agent.get('/api/v1/workspaces/?limit=1000')).body);
    expect(list.map((workspace) => workspace.id)).not.toContain(bob.workspaceId);
    expect(JSON.stringify(list)).not.toContain('Secretname');
  });
});

describe('a workspace deleted between the access check and the write', () => {
  // The routes check membership first and write after, so a concurrent delete can land in between;
  // the services are called directly here to put it exactly there.
  it('renaming it answers 404, not a server error', async () => {
    const workspace = await createWorkspace(alice, 'Vanishing');
    await ctx.database.prisma.workspace.delete({ where: { id: workspace.id } });
    const rename = updateWorkspace(ctx.database.prisma, {
      id: workspace.id,
      role: 'owner',
      name: 'Too late',
      publish: {
        box: createSecretBox(ctx.config.secretsKey.current),
        agentKeys: createAgentKeyring(ctx.config.secretsKey.current),
        prices: ctx.config.modelPrices,
        poolUrls: new Map(),
        change: { cause: 'guardrails', authorId: null },
        versionRetention: 100,
      },
    });
    await expect(rename).rejects.toMatchObject({ constructor: AppError, code: 'not_found' });
  });

  it('inviting a member to it answers 404, not a server error', async () => {
    const workspace = await createWorkspace(alice, 'Vanishing too');
    await ctx.database.prisma.workspace.delete({ where: { id: workspace.id } });
    const add = inviteMember(ctx.database.prisma, {
      workspaceId: workspace.id,
      actor: { userId: alice.userId, role: 'owner' },
      email: bob.email,
      role: 'member',
      ttlSeconds: 60,
    });
    await expect(add).rejects.toMatchObject({ constructor: AppError, code: 'not_found' });
  });
});
