// The operator's cap on agents per workspace (MAX_AGENTS_PER_WORKSPACE): a create past it is a 409
// problem+json naming the setting, per workspace; a delete makes room again; creates racing at the
// cap never both pass.
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
import { agentBody, createAgentThroughApi } from '../testing/resource-fixtures.js';

const CAP = 3;

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp({ MAX_AGENTS_PER_WORKSPACE: String(CAP) });
});
afterAll(() => ctx?.close());

const agentsIn = (workspaceId: string) => ctx.database.prisma.agent.count({ where: { workspaceId } });

function expectCapRefusal(response: request.Response) {
  expectProblemShape(response, 409);
  expect(response.body.type).toBe('urn:agentplane:problem:agents-per-workspace');
  expect(response.body.detail).toContain(`MAX_AGENTS_PER_WORKSPACE=${CAP}`);
}

describe('the cap on agents per workspace', () => {
  it('refuses an agent past the cap with 409, in that workspace only, until one is deleted', async () => {
    const owner = await signUpUser(ctx.app);
    const agents = [];
    for (let i = 0; i < CAP; i++) agents.push(await createAgentThroughApi(owner));
    expectCapRefusal(await owner.agent.post('/api/v1/agents/').send(agentBody()));
    expect(await agentsIn(owner.workspaceId)).toBe(CAP);
    // Nothing of the refused agent is left: no engine role, no published config.
    expect(await ctx.database.prisma.engineConfig.count({ where: { workspaceId: owner.workspaceId } })).toBe(CAP);

    const stranger = await signUpUser(ctx.app);
    expect((await stranger.agent.post('/api/v1/agents/').send(agentBody())).status).toBe(201);

    expect((await owner.agent.delete(`/api/v1/agents/${agents[0]?.id}`)).status).toBe(204);
    expect((await owner.agent.post('/api/v1/agents/').send(agentBody())).status).toBe(201);
  });

  it('lets exactly the cap through when creates race in one workspace', async () => {
    const owner = await signUpUser(ctx.app);
    const responses = await Promise.all(
      Array.from({ length: 2 * CAP }, () => owner.agent.post('/api/v1/agents/').send(agentBody())),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(CAP);
    for (const refused of responses.filter((response) => response.status !== 201)) expectCapRefusal(refused);
    expect(await agentsIn(owner.workspaceId)).toBe(CAP);
  });

  it('still checks the session and the role before the cap', async () => {
    const owner = await signUpUser(ctx.app);
    const viewer: SignedInUser = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    expect((await request(ctx.app).post('/api/v1/agents/').send(agentBody())).status).toBe(401);
    const asViewer = await viewer.agent
      .post('/api/v1/agents/')
      .set('x-workspace-id', owner.workspaceId)
      .send(agentBody());
    expectProblemShape(asViewer, 403);
    expect(await agentsIn(owner.workspaceId)).toBe(0);
  });
});
