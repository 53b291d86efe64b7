// Agents referencing guardrails: the links, what their engine_config carries, and the model judges only
// an LLM agent can apply.
import { randomUUID } from 'node:crypto';
import { ENGINE_CONFIG_MAX_BYTES, type TAgent, ZAgent } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
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
let owner: SignedInUser;
let stranger: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  [owner, stranger] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app)]);
});
afterAll(() => ctx?.close());

describe('an agent naming guardrails', () => {
  it('shows their ids and carries them in its engine_config as the engine runs them', async () => {
    const first = await createGuardrailThroughApi(owner, { description: 'First', rules: [WORDS_RULE] });
    const second = await createGuardrailThroughApi(owner);
    const agent = await createAgentThroughApi(owner, { guardrail_ids: [first, second] });
    expect(agent.resources.guardrail_ids).toEqual([first, second]);
    expect(agent.engine_config.guardrails).toEqual([
      {
        id: first,
        name: expect.stringMatching(/^guardrail-/),
        description: 'First',
        rules: [{ ...WORDS_RULE, regexes: [], case_sensitive: false }],
      },
      expect.objectContaining({ id: second }),
    ]);
    expect((await owner.agent.get(`/api/v1/guardrails/${first}`)).body.agent_count).toBe(1);
    const listed = await owner.agent.get('/api/v1/agents/?limit=1000');
    expect(listed.body.find((item: TAgent) => item.id === agent.id).resources.guardrail_ids).toEqual([first, second]);
  });

  it('answers 422 naming each id that is unknown or of another workspace, on create and on PATCH', async () => {
    const mine = await createGuardrailThroughApi(owner);
    const theirs = await createGuardrailThroughApi(stranger);
    const unknown = randomUUID();
    const created = await owner.agent
      .post('/api/v1/agents/')
      .send(agentBody({ guardrail_ids: [mine, theirs, unknown] }));
    expectProblemShape(created, 422);
    expect(created.body.errors).toEqual([
      { path: 'resources.guardrail_ids[1]', message: `No guardrail with id ${theirs} in this workspace` },
      { path: 'resources.guardrail_ids[2]', message: `No guardrail with id ${unknown} in this workspace` },
    ]);

    const agent = await createAgentThroughApi(owner, { guardrail_ids: [mine] });
    const patched = await owner.agent
      .patch(`/api/v1/agents/${agent.id}`)
      .send(agentBody({ guardrail_ids: [theirs] }, { name: agent.name }));
    expectProblemShape(patched, 422);
    expect(patched.body.errors.map((error: { path: string }) => error.path)).toEqual(['resources.guardrail_ids[0]']);
    expect((await readAgentThroughApi(owner, agent.id)).resources.guardrail_ids).toEqual([mine]);
  });

  it('answers 422 to a duplicate id and to one that is not a UUID', async () => {
    const mine = await createGuardrailThroughApi(owner);
    const duplicate = await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [mine, mine] }));
    expectProblemShape(duplicate, 422);
    expect(duplicate.body.errors).toEqual([{ path: 'resources.guardrail_ids[1]', message: 'Duplicate guardrail id' }]);
    expectProblemShape(await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: ['nope'] })), 422);
  });

  it('a PATCH of the agent replaces its guardrails, and detaching them lets them be deleted', async () => {
    const [first, second] = [await createGuardrailThroughApi(owner), await createGuardrailThroughApi(owner)];
    const agent = await createAgentThroughApi(owner, { guardrail_ids: [first] });
    const patched = await owner.agent
      .patch(`/api/v1/agents/${agent.id}`)
      .send(agentBody({ guardrail_ids: [second] }, { name: agent.name }));
    expect(patched.status).toBe(200);
    const read = ZAgent.parse(patched.body);
    expect(read.resources.guardrail_ids).toEqual([second]);
    expect(read.engine_config.guardrails.map((guardrail) => guardrail.id)).toEqual([second]);
    expect(read.engine_config_version).toBe(2);
    expect((await owner.agent.delete(`/api/v1/guardrails/${first}`)).status).toBe(204);
    const refused = await owner.agent.delete(`/api/v1/guardrails/${second}`);
    expectProblemShape(refused, 409);
    expect(refused.body.detail).toBe(
      `This guardrail is used by 1 agent (${JSON.stringify(agent.name)}); detach it from that agent first.`,
    );
  });

  it('refuses (422, engine_config) guardrails that would make the engine config too large', async () => {
    // Two guardrails of about 160 KB each: together over the 256 KiB an engine config may weigh.
    const rules = heavyRules();
    const [big, bigger] = [
      await createGuardrailThroughApi(owner, { rules }),
      await createGuardrailThroughApi(owner, { rules }),
    ];
    expect(JSON.stringify(rules).length * 2).toBeGreaterThan(ENGINE_CONFIG_MAX_BYTES);
    const one = await createAgentThroughApi(owner, { guardrail_ids: [big] });
    const both = await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [big, bigger] }));
    expectProblemShape(both, 422);
    expect(both.body.errors).toEqual([{ path: 'engine_config', message: expect.stringContaining('bytes') }]);
    const patched = await owner.agent
      .patch(`/api/v1/agents/${one.id}`)
      .send(agentBody({ guardrail_ids: [big, bigger] }, { name: one.name }));
    expectProblemShape(patched, 422);
    expect((await readAgentThroughApi(owner, one.id)).resources.guardrail_ids).toEqual([big]);
  });
});

describe('model judges, which need the agent’s model', () => {
  it('an LLM agent may name a guardrail with one; another framework gets 422 naming the rule', async () => {
    const judged = await createGuardrailThroughApi(owner, { rules: [WORDS_RULE, JUDGE_RULE] });
    expect(
      (await createAgentThroughApi(owner, { guardrail_ids: [judged] })).engine_config.guardrails[0]?.rules,
    ).toHaveLength(2);

    const custom = await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [judged] }, CUSTOM_AGENT));
    expectProblemShape(custom, 422);
    expect(custom.body.errors).toEqual([
      {
        path: 'resources.guardrail_ids[0]',
        message: expect.stringMatching(/model_judge rule "judge".*only LLM agents/),
      },
    ]);
  });

  it('an LLM agent naming one cannot become another framework (422)', async () => {
    const judged = await createGuardrailThroughApi(owner, { rules: [JUDGE_RULE] });
    const agent = await createAgentThroughApi(owner, { guardrail_ids: [judged] });
    const moved = await owner.agent
      .patch(`/api/v1/agents/${agent.id}`)
      .send(agentBody({ guardrail_ids: [judged] }, { ...CUSTOM_AGENT, name: agent.name }));
    expectProblemShape(moved, 422);
    expect((await readAgentThroughApi(owner, agent.id)).framework).toBe('LLM');
  });

  it('a PATCH adding one to a guardrail that a non-LLM agent names is 422 naming the rule and the agent', async () => {
    const guardrail = await createGuardrailThroughApi(owner, { rules: [WORDS_RULE] });
    const custom = await createAgentThroughApi(owner, { guardrail_ids: [guardrail] }, CUSTOM_AGENT);
    const patched = await owner.agent
      .patch(`/api/v1/guardrails/${guardrail}`)
      .send(guardrailBody({ rules: [WORDS_RULE, JUDGE_RULE] }));
    expectProblemShape(patched, 422);
    expect(patched.body.errors).toEqual([
      {
        path: 'guardrail.rules[1]',
        message: expect.stringContaining(`"judge" cannot apply to agents "${custom.name}"`),
      },
    ]);
    expect((await readAgentThroughApi(owner, custom.id)).engine_config_version).toBe(1);
    const other = await createGuardrailThroughApi(owner, { rules: [WORDS_RULE] });
    expect(
      (await owner.agent.patch(`/api/v1/guardrails/${other}`).send(guardrailBody({ rules: [JUDGE_RULE] }))).status,
    ).toBe(200);
  });

  it('a PATCH adding one, racing the attach of a non-LLM agent, lets exactly one of them through (20 rounds)', async () => {
    const user = await signUpUser(ctx.app);
    for (let round = 0; round < 20; round++) {
      const guardrail = await createGuardrailThroughApi(user, { rules: [WORDS_RULE] });
      const [patched, created] = await Promise.all([
        user.agent.patch(`/api/v1/guardrails/${guardrail}`).send(guardrailBody({ rules: [WORDS_RULE, JUDGE_RULE] })),
        user.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [guardrail] }, CUSTOM_AGENT)),
      ]);
      expect(['200/422', '422/201']).toContain(`${patched.status}/${created.status}`);
    }
  });
});
