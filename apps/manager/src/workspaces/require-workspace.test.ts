// The x-workspace-id rules, through the real middleware and real database lookups. No route of the
// manager uses the header yet (the workspace-scoped resources come later), so a small app mounts it.
import { ROLES, type TRole } from '@agentplane/contracts';
import { createTestDatabase, makeUser, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { problemHandler } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express, { type Express, type Request } from 'express';
import request from 'supertest';
import { expectProblemShape } from '../testing/manager-test-app.js';
import { requireHeaderWorkspace } from './require-workspace.js';

let database: TestDatabase;
let app: Express;

/** One route per minimum role, answering with the workspace the middleware resolved. */
function createProbeApp(db: TestDatabase['prisma']): Express {
  const probe = express();
  // Stands in for express-session, whose cookie handling is tested with the auth routes: the
  // middleware only reads req.session.userId. Every membership lookup below is real.
  probe.use((req, _res, next) => {
    const userId = req.get('x-test-user-id');
    if (userId) req.session = { userId } as unknown as Request['session'];
    next();
  });
  for (const role of ROLES) {
    probe.get(`/needs/${role}`, requireHeaderWorkspace(db, role), (req, res) => {
      res.json(req.workspace);
    });
  }
  probe.use(problemHandler);
  return probe;
}

beforeAll(async () => {
  database = await createTestDatabase();
  app = createProbeApp(database.prisma);
});
afterAll(() => database?.drop());

function probe(userId: string, minRole: TRole, workspaceHeader?: string | string[]) {
  const req = request(app).get(`/needs/${minRole}`).set('x-test-user-id', userId);
  // An array sends the header once per value.
  return workspaceHeader === undefined ? req : req.set({ 'x-workspace-id': workspaceHeader });
}

async function addMembership(userId: string, workspaceId: string, role: TRole, createdAt?: Date) {
  await database.prisma.membership.create({ data: { userId, workspaceId, role, ...(createdAt ? { createdAt } : {}) } });
}

/** A user who owns `later` but whose earliest membership is `earlier`, as a viewer. */
async function makeUserInTwoWorkspaces() {
  const user = await makeUser(database.prisma);
  const later = await makeWorkspace(database.prisma);
  const earlier = await makeWorkspace(database.prisma);
  // Inserted in the opposite order of their dates, so neither insertion order nor the higher role wins.
  await addMembership(user.id, later.id, 'owner', new Date('2024-01-02T00:00:00Z'));
  await addMembership(user.id, earlier.id, 'viewer', new Date('2024-01-01T00:00:00Z'));
  return { user, later, earlier };
}

describe('requireHeaderWorkspace: which workspace', () => {
  it('when the header is absent, it acts in the earliest membership, with the role held there', async () => {
    const { user, earlier } = await makeUserInTwoWorkspaces();
    const response = await probe(user.id, 'viewer');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: earlier.id, role: 'viewer' });
    // The default is not the workspace where the user has the most rights.
    expectProblemShape(await probe(user.id, 'member'), 403);
  });

  it('when the header is empty, it acts in the default workspace as if it were absent', async () => {
    const { user, earlier } = await makeUserInTwoWorkspaces();
    const response = await probe(user.id, 'viewer', '');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: earlier.id, role: 'viewer' });
  });

  it('when the header names a workspace the user belongs to, it acts there with the role held there', async () => {
    const { user, later } = await makeUserInTwoWorkspaces();
    const response = await probe(user.id, 'owner', later.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: later.id, role: 'owner' });
  });

  it('reads an upper-case UUID as the same workspace and reports its canonical id', async () => {
    const { user, later } = await makeUserInTwoWorkspaces();
    const response = await probe(user.id, 'viewer', later.id.toUpperCase());
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: later.id, role: 'owner' });
  });

  it('when the user has no membership at all and sends no header, it answers 403', async () => {
    const loner = await makeUser(database.prisma);
    const response = await probe(loner.id, 'viewer');
    expectProblemShape(response, 403);
    expect(response.body.detail).toMatch(/not a member of any workspace/);
  });

  it('without a signed-in user, it answers 401', async () => {
    const response = await request(app).get('/needs/viewer');
    expectProblemShape(response, 401);
  });
});

describe('requireHeaderWorkspace: refusals', () => {
  it.each([
    ['not a UUID', 'acme'],
    ['a number', '42'],
    ['a UUID with extra characters', '00000000-0000-4000-8000-000000000000x'],
    ['a UUID without its dashes', '5b2c8f8e8d6a4d5e9c1e7a7f2b9e0c11'],
  ])('when the header is %s, it answers 400 naming the header', async (_label, header) => {
    const { user } = await makeUserInTwoWorkspaces();
    const response = await probe(user.id, 'viewer', header);
    expectProblemShape(response, 400);
    expect(response.body.detail).toMatch(/x-workspace-id/);
  });

  it('when the header is sent twice, it answers 400 rather than picking one', async () => {
    const { user, earlier, later } = await makeUserInTwoWorkspaces();
    expectProblemShape(await probe(user.id, 'viewer', [earlier.id, later.id]), 400);
  });

  it('when the workspace exists but the user is not a member, or does not exist at all, it answers the same 403', async () => {
    const { user } = await makeUserInTwoWorkspaces();
    const foreign = await makeWorkspace(database.prisma, { name: 'Foreign secret name' });
    const notMember = await probe(user.id, 'viewer', foreign.id);
    const missing = await probe(user.id, 'viewer', '5b2c8f8e-8d6a-4d5e-9c1e-7a7f2b9e0c11');
    expectProblemShape(notMember, 403);
    expectProblemShape(missing, 403);
    expect(notMember.body).toEqual(missing.body);
    expect(notMember.text).not.toContain('Foreign secret name');
  });

  it('when the workspace was deleted, it answers 403', async () => {
    const { user, later } = await makeUserInTwoWorkspaces();
    await database.prisma.workspace.delete({ where: { id: later.id } });
    expectProblemShape(await probe(user.id, 'viewer', later.id), 403);
  });

  const ROLE_CASES: [TRole, TRole, number][] = [
    ['viewer', 'viewer', 200],
    ['viewer', 'member', 403],
    ['member', 'member', 200],
    ['member', 'admin', 403],
    ['admin', 'admin', 200],
    ['admin', 'owner', 403],
    ['owner', 'owner', 200],
  ];
  it.each(ROLE_CASES)('with the %s role, a route that needs %s answers %i', async (role, minRole, status) => {
    const user = await makeUser(database.prisma);
    const workspace = await makeWorkspace(database.prisma);
    await addMembership(user.id, workspace.id, role);
    const response = await probe(user.id, minRole, workspace.id);
    if (status === 200) {
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id: workspace.id, role });
    } else {
      expectProblemShape(response, status);
      expect(response.body.detail).toBe(`This needs the ${minRole} role or higher; you are ${role}.`);
    }
  });
});

describe('requireHeaderWorkspace: checked against the database on every request', () => {
  it('when the membership is removed, the very next request answers 403', async () => {
    const { user, later } = await makeUserInTwoWorkspaces();
    expect((await probe(user.id, 'viewer', later.id)).status).toBe(200);
    await database.prisma.membership.delete({
      where: { workspaceId_userId: { workspaceId: later.id, userId: user.id } },
    });
    expectProblemShape(await probe(user.id, 'viewer', later.id), 403);
  });

  it('when the default workspace membership is removed, the next request falls back to the next-earliest one', async () => {
    const { user, earlier, later } = await makeUserInTwoWorkspaces();
    expect((await probe(user.id, 'viewer')).body).toEqual({ id: earlier.id, role: 'viewer' });
    await database.prisma.membership.delete({
      where: { workspaceId_userId: { workspaceId: earlier.id, userId: user.id } },
    });
    const response = await probe(user.id, 'viewer');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: later.id, role: 'owner' });
  });

  it('when the role is lowered, the very next request is judged by the new role', async () => {
    const { user, later } = await makeUserInTwoWorkspaces();
    expect((await probe(user.id, 'admin', later.id)).status).toBe(200);
    await database.prisma.membership.update({
      where: { workspaceId_userId: { workspaceId: later.id, userId: user.id } },
      data: { role: 'viewer' },
    });
    expectProblemShape(await probe(user.id, 'member', later.id), 403);
    expect((await probe(user.id, 'viewer', later.id)).body).toEqual({ id: later.id, role: 'viewer' });
  });
});
