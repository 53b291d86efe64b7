// A workspace's default placement of new agents: admins and owners set it with the workspace's PATCH,
// every member reads it, and it names only a pool the operator serves.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  uniquePoolName,
} from '../testing/manager-test-app.js';

const POOL = uniquePoolName();
const ON_POOL = { mode: 'pool', pool: POOL };

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp({ ENGINE_POOLS: `${POOL}=http://127.0.0.1:8101` });
});
afterAll(() => ctx?.close());

const workspacePath = (user: SignedInUser) => `/api/v1/workspaces/${user.workspaceId}`;
const setDefault = (user: SignedInUser, workspaceOf: SignedInUser, body: object) =>
  user.agent.patch(workspacePath(workspaceOf)).send({ name: 'Placed', ...body });

describe("the workspace's default_deployment", () => {
  it("is null (the operator's) until an admin or owner sets it, and every member reads it", async () => {
    const owner = await signUpUser(ctx.app);
    expect((await owner.agent.get(workspacePath(owner))).body.default_deployment).toBeNull();
    const admin = await signUpUser(ctx.app);
    await addToWorkspace(owner, admin, 'admin');
    const set = await setDefault(admin, owner, { default_deployment: ON_POOL });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: 'Placed', default_deployment: ON_POOL });
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    expect((await viewer.agent.get(workspacePath(owner))).body.default_deployment).toEqual(ON_POOL);
    const listed = await viewer.agent.get('/api/v1/workspaces/');
    expect(listed.body.find((item: { id: string }) => item.id === owner.workspaceId).default_deployment).toEqual(
      ON_POOL,
    );
    expect(
      (await setDefault(owner, owner, { default_deployment: { mode: 'dedicated' } })).body.default_deployment,
    ).toEqual({
      mode: 'dedicated',
    });
  });

  it('is kept by a rename that leaves it out, and cleared by null', async () => {
    const owner = await signUpUser(ctx.app);
    await setDefault(owner, owner, { default_deployment: ON_POOL });
    const renamed = await owner.agent.patch(workspacePath(owner)).send({ name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', default_deployment: ON_POOL });
    const cleared = await setDefault(owner, owner, { default_deployment: null });
    expect(cleared.body.default_deployment).toBeNull();
    const row = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: owner.workspaceId } });
    expect(row).toMatchObject({ defaultDeploymentMode: null, defaultDeploymentPool: null });
  });

  it('refuses members and viewers (403), other workspaces and unknown ids (404), anonymous callers (401)', async () => {
    const owner = await signUpUser(ctx.app);
    for (const role of ['member', 'viewer']) {
      const user = await signUpUser(ctx.app);
      await addToWorkspace(owner, user, role);
      expectProblemShape(await setDefault(user, owner, { default_deployment: ON_POOL }), 403);
    }
    const stranger = await signUpUser(ctx.app);
    expectProblemShape(await setDefault(stranger, owner, { default_deployment: ON_POOL }), 404);
    const unknown = await owner.agent.patch(`/api/v1/workspaces/${randomUUID()}`).send({ name: 'x' });
    expectProblemShape(unknown, 404);
    expectProblemShape(await request(ctx.app).patch(workspacePath(owner)).send({ name: 'x' }), 401);
    expect((await owner.agent.get(workspacePath(owner))).body.default_deployment).toBeNull();
  });

  it('names only a pool the operator serves (422 naming default_deployment.pool); malformed ones are 4xx', async () => {
    const owner = await signUpUser(ctx.app);
    const unknown = await setDefault(owner, owner, { default_deployment: { mode: 'pool', pool: 'elsewhere' } });
    expectProblemShape(unknown, 422);
    expect(unknown.body.errors).toEqual([{ path: 'default_deployment.pool', message: expect.stringContaining(POOL) }]);
    for (const deployment of [
      { mode: 'pool' },
      { mode: 'dedicated', pool: POOL },
      { mode: 'elsewhere' },
      'pool',
      7,
      { mode: 'pool', pool: 'x'.repeat(100_000) },
      { mode: 'pool', pool: '\u0000' },
    ]) {
      const response = await setDefault(owner, owner, { default_deployment: deployment });
      expect([400, 422]).toContain(response.status);
      expectProblemShape(response, response.status);
    }
    expect((await owner.agent.get(workspacePath(owner))).body.default_deployment).toBeNull();
  });
});
