// A workspace's default guardrails: set with PATCH /workspaces/{id}, applied by every agent of it,
// republished on every change, and never left pointing at a deleted guardrail.
import { randomUUID } from 'node:crypto';
import { type TAgent, ZWorkspace } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
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
  CUSTOM_AGENT,
  createAgentThroughApi,
  createGuardrailThroughApi,
  guardrailBody,
  heavyRules,
  JUDGE_RULE,
  readAgentThroughApi,
  WORDS_RULE,
} from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

const workspaceUrl = (user: SignedInUser) => `/api/v1/workspaces/${user.workspaceId}`;

const setDefaults = (user: SignedInUser, ids: string[], as: SignedInUser = user) =>
  as.agent
    .patch(workspaceUrl(user))
    .set('x-workspace-id', user.workspaceId)
    .send({ name: 'Guarded', default_guardrail_ids: ids });

const guardrailIdsOf = (agent: TAgent) => agent.engine_config.guardrails.map((guardrail) => guardrail.id);

describe('PATCH /workspaces/{id} with default_guardrail_ids', () => {
  it('sets them, shows them in GET and in the list, keeps them when omitted, and clears them with []', async () => {
    const user = await signUpUser(ctx.app);
    const [first, second] = [await createGuardrailThroughApi(user), await createGuardrailThroughApi(user)];
    const set = await setDefaults(user, [second, first]);
    expect(set.status).toBe(200);
    // In the order the guardrails were created, as every list of ids is.
    expect(ZWorkspace.parse(set.body).default_guardrail_ids).toEqual([first, second]);
    expect(ZWorkspace.parse((await user.agent.get(workspaceUrl(user))).body).default_guardrail_ids).toEqual([
      first,
      second,
    ]);
    const listed = z.array(ZWorkspace).parse((await user.agent.get('/api/v1/workspaces/')).body);
    expect(listed.find((workspace) => workspace.id === user.workspaceId)?.default_guardrail_ids).toEqual([
      first,
      second,
    ]);

    const renamed = await user.agent.patch(workspaceUrl(user)).send({ name: 'Renamed only' });
    expect(ZWorkspace.parse(renamed.body).default_guardrail_ids).toEqual([first, second]);
    const cleared = await setDefaults(user, []);
    expect(ZWorkspace.parse(cleared.body).default_guardrail_ids).toEqual([]);
    expect(ZWorkspace.parse((await user.agent.post('/api/v1/workspaces/').send({ name: 'New' })).body)).toMatchObject({
      default_guardrail_ids: [],
    });
  });

  it('answers 422 naming an id that is unknown or of another workspace, and changes nothing', async () => {
    const [user, stranger] = [await signUpUser(ctx.app), await signUpUser(ctx.app)];
    const mine = await createGuardrailThroughApi(user);
    const theirs = await createGuardrailThroughApi(stranger);
    const unknown = randomUUID();
    await setDefaults(user, [mine]);
    const refused = await user.agent
      .patch(workspaceUrl(user))
      .send({ name: 'Renamed in vain', default_guardrail_ids: [mine, theirs, unknown] });
    expectProblemShape(refused, 422);
    expect(refused.body.errors).toEqual([
      { path: 'default_guardrail_ids[1]', message: `No guardrail with id ${theirs} in this workspace` },
      { path: 'default_guardrail_ids[2]', message: `No guardrail with id ${unknown} in this workspace` },
    ]);
    const read = ZWorkspace.parse((await user.agent.get(workspaceUrl(user))).body);
    expect(read).toMatchObject({ default_guardrail_ids: [mine] });
    // The rename in the same body is rolled back with it.
    expect(read.name).toBe('Guarded');
    for (const bad of [[mine, mine], ['not-a-uuid'], 'all', [null]]) {
      const response = await user.agent.patch(workspaceUrl(user)).send({ name: 'x', default_guardrail_ids: bad });
      expectProblemShape(response, 422);
    }
  });

  it('is for admins and owners: a member or a viewer gets 403, a stranger 404, no session 401', async () => {
    const owner = await signUpUser(ctx.app);
    const guardrail = await createGuardrailThroughApi(owner);
    const [admin, member, viewer, stranger] = await Promise.all([1, 2, 3, 4].map(() => signUpUser(ctx.app)));
    if (!admin || !member || !viewer || !stranger) throw new Error('sign-up failed');
    await addToWorkspace(owner, admin, 'admin');
    await addToWorkspace(owner, member, 'member');
    await addToWorkspace(owner, viewer, 'viewer');
    expectProblemShape(await setDefaults(owner, [guardrail], member), 403);
    expectProblemShape(await setDefaults(owner, [guardrail], viewer), 403);
    expectProblemShape(await setDefaults(owner, [guardrail], stranger), 404);
    expectProblemShape(
      await request(ctx.app).patch(workspaceUrl(owner)).send({ name: 'x', default_guardrail_ids: [] }),
      401,
    );
    expect(ZWorkspace.parse((await owner.agent.get(workspaceUrl(owner))).body).default_guardrail_ids).toEqual([]);
    expect((await setDefaults(owner, [guardrail], admin)).status).toBe(200);
  });
});

describe('what agents apply', () => {
  it('a change republishes every agent of the workspace: its own guardrails first, then the defaults it does not name', async () => {
    const user = await signUpUser(ctx.app);
    const [own, shared, other] = [
      await createGuardrailThroughApi(user),
      await createGuardrailThroughApi(user),
      await createGuardrailThroughApi(user),
    ];
    const naming = await createAgentThroughApi(user, { guardrail_ids: [own, shared] });
    const plain = await createAgentThroughApi(user);
    const stranger = await signUpUser(ctx.app);
    const bystander = await createAgentThroughApi(stranger);

    expect((await setDefaults(user, [shared, other])).status).toBe(200);
    const [namingRead, plainRead] = [
      await readAgentThroughApi(user, naming.id),
      await readAgentThroughApi(user, plain.id),
    ];
    expect(guardrailIdsOf(namingRead)).toEqual([own, shared, other]);
    expect(guardrailIdsOf(plainRead)).toEqual([shared, other]);
    expect([namingRead.engine_config_version, plainRead.engine_config_version]).toEqual([2, 2]);
    // The defaults are not the agent's own references.
    expect(plainRead.resources.guardrail_ids).toEqual([]);
    expect((await readAgentThroughApi(stranger, bystander.id)).engine_config_version).toBe(1);

    // An agent created afterwards applies them from its first config.
    expect(guardrailIdsOf(await createAgentThroughApi(user))).toEqual([shared, other]);
    // The same set again changes no config.
    await setDefaults(user, [other, shared]);
    expect((await readAgentThroughApi(user, plain.id)).engine_config_version).toBe(2);

    await setDefaults(user, []);
    expect(guardrailIdsOf(await readAgentThroughApi(user, plain.id))).toEqual([]);
    expect((await readAgentThroughApi(user, plain.id)).engine_config_version).toBe(3);
  });

  it('a PATCH of a default guardrail republishes the agents that apply it, with the new rules', async () => {
    const user = await signUpUser(ctx.app);
    const guardrail = await createGuardrailThroughApi(user);
    const agent = await createAgentThroughApi(user);
    await setDefaults(user, [guardrail]);
    const rules = [{ name: 'long', kind: 'max_length', max_chars: 42, position: 'input', action: 'block' }];
    const patched = await user.agent.patch(`/api/v1/guardrails/${guardrail}`).send(guardrailBody({ rules }));
    expect(patched.status).toBe(200);
    // agent_count counts the agents naming it, not those applying it as a default.
    expect(patched.body.agent_count).toBe(0);
    const read = await readAgentThroughApi(user, agent.id);
    expect(read.engine_config_version).toBe(3);
    expect(read.engine_config.guardrails).toEqual([expect.objectContaining({ id: guardrail, rules })]);
  });

  it('an agent of another framework applies a default without its model judges, and none that has only judges', async () => {
    const user = await signUpUser(ctx.app);
    const mixed = await createGuardrailThroughApi(user, { rules: [WORDS_RULE, JUDGE_RULE] });
    const judgeOnly = await createGuardrailThroughApi(user, { rules: [JUDGE_RULE] });
    const llm = await createAgentThroughApi(user);
    const custom = await createAgentThroughApi(user, {}, CUSTOM_AGENT);
    expect((await setDefaults(user, [mixed, judgeOnly])).status).toBe(200);
    const llmRead = await readAgentThroughApi(user, llm.id);
    expect(llmRead.engine_config.guardrails.map((guardrail) => guardrail.rules.map((rule) => rule.name))).toEqual([
      ['words', 'judge'],
      ['judge'],
    ]);
    const customRead = await readAgentThroughApi(user, custom.id);
    expect(customRead.engine_config.guardrails).toEqual([
      expect.objectContaining({ id: mixed, rules: [expect.objectContaining({ name: 'words' })] }),
    ]);
  });

  it('refuses (422, engine_config) defaults that would make an agent’s engine config too large, changing nothing', async () => {
    const user = await signUpUser(ctx.app);
    const rules = heavyRules();
    const [big, bigger] = [
      await createGuardrailThroughApi(user, { rules }),
      await createGuardrailThroughApi(user, { rules }),
    ];
    const agent = await createAgentThroughApi(user, { guardrail_ids: [big] });
    const refused = await setDefaults(user, [bigger]);
    expectProblemShape(refused, 422);
    expect(refused.body.errors).toEqual([{ path: 'engine_config', message: expect.stringContaining(agent.id) }]);
    expect(ZWorkspace.parse((await user.agent.get(workspaceUrl(user))).body).default_guardrail_ids).toEqual([]);
  });
});

describe('deleting', () => {
  it('a default guardrail is a 409 saying so, and one that agents name too says both', async () => {
    const user = await signUpUser(ctx.app);
    const [onlyDefault, both] = [await createGuardrailThroughApi(user), await createGuardrailThroughApi(user)];
    const agent = await createAgentThroughApi(user, { guardrail_ids: [both] });
    await setDefaults(user, [onlyDefault, both]);

    const refused = await user.agent.delete(`/api/v1/guardrails/${onlyDefault}`);
    expectProblemShape(refused, 409);
    expect(refused.body.detail).toBe(
      "This guardrail is one of the workspace's default guardrails, which all its agents apply; remove it from the workspace's default_guardrail_ids first.",
    );
    const refusedBoth = await user.agent.delete(`/api/v1/guardrails/${both}`);
    expectProblemShape(refusedBoth, 409);
    expect(refusedBoth.body.detail).toBe(
      `This guardrail is used by 1 agent (${JSON.stringify(agent.name)}) and is one of the workspace's default guardrails, which all its agents apply; detach it from that agent and remove it from the workspace's default_guardrail_ids first.`,
    );

    await setDefaults(user, []);
    expect((await user.agent.delete(`/api/v1/guardrails/${onlyDefault}`)).status).toBe(204);
  });

  it('a DELETE racing its attach as a default ends in 409 or success, never a dangling link (30 rounds)', async () => {
    const user = await signUpUser(ctx.app);
    const agent = await createAgentThroughApi(user);
    for (let round = 0; round < 30; round++) {
      const guardrail = await createGuardrailThroughApi(user);
      const [deleted, attached] = await Promise.all([
        user.agent.delete(`/api/v1/guardrails/${guardrail}`),
        setDefaults(user, [guardrail]),
      ]);
      const outcome = `${deleted.status}/${attached.status}`;
      expect(['204/422', '409/200']).toContain(outcome);
      const exists = (await user.agent.get(`/api/v1/guardrails/${guardrail}`)).status === 200;
      expect(exists).toBe(outcome === '409/200');
      const workspace = ZWorkspace.parse((await user.agent.get(workspaceUrl(user))).body);
      expect(workspace.default_guardrail_ids).toEqual(exists ? [guardrail] : []);
      expect(guardrailIdsOf(await readAgentThroughApi(user, agent.id))).toEqual(exists ? [guardrail] : []);
      await setDefaults(user, []);
    }
  });

  it('a workspace with guardrails named by agents and set as defaults is deleted whole (204)', async () => {
    const user = await signUpUser(ctx.app);
    const workspace = ZWorkspace.parse((await user.agent.post('/api/v1/workspaces/').send({ name: 'Doomed' })).body);
    const inDoomed = { ...user, workspaceId: workspace.id };
    const scoped = (test: request.Test) => test.set('x-workspace-id', workspace.id);
    const guardrail = (
      await scoped(user.agent.post('/api/v1/guardrails/')).send(guardrailBody({ rules: [WORDS_RULE] }))
    ).body.id as string;
    const agent = await scoped(user.agent.post('/api/v1/agents/')).send(agentBody({ guardrail_ids: [guardrail] }));
    expect(agent.status).toBe(201);
    expect((await setDefaults(inDoomed, [guardrail])).status).toBe(200);

    expect((await user.agent.delete(`/api/v1/workspaces/${workspace.id}`)).status).toBe(204);
    const db = ctx.database.prisma;
    expect(await db.guardrail.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect(await db.workspaceGuardrail.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect(await db.agentGuardrail.count({ where: { guardrailId: guardrail } })).toBe(0);
  });
});
