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
import { agentBody, createThroughApi, guardrailBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let stranger: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  [owner, stranger] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app)]);
});
afterAll(() => ctx?.close());

const JUDGE = { name: 'judge', kind: 'model_judge', rubric: 'No legal advice', position: 'input', action: 'block' };
const WORDS = { name: 'words', kind: 'pattern', phrases: ['insider tip'], position: 'output', action: 'block' };
const CUSTOM = { framework: 'CUSTOM', agent: { module: 'agents/custom.js:create' } };

const createGuardrail = (user: SignedInUser, overrides: Record<string, unknown> = {}) =>
  createThroughApi(user, '/api/v1/guardrails/', guardrailBody(overrides));

async function createAgent(user: SignedInUser, guardrailIds: string[], overrides: Record<string, unknown> = {}) {
  const response = await user.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: guardrailIds }, overrides));
  expect(response.status).toBe(201);
  return ZAgent.parse(response.body);
}

const readAgent = async (user: SignedInUser, id: string): Promise<TAgent> =>
  ZAgent.parse((await user.agent.get(`/api/v1/agents/${id}`)).body);

describe('an agent naming guardrails', () => {
  it('shows their ids and carries them in its engine_config as the engine runs them', async () => {
    const first = await createGuardrail(owner, { description: 'First', rules: [WORDS] });
    const second = await createGuardrail(owner);
    const agent = await createAgent(owner, [first, second]);
    expect(agent.resources.guardrail_ids).toEqual([first, second]);
    expect(agent.engine_config.guardrails).toEqual([
      {
        id: first,
        name: expect.stringMatching(/^guardrail-/),
        description: 'First',
        rules: [{ ...WORDS, regexes: [], case_sensitive: false }],
      },
      expect.objectContaining({ id: second }),
    ]);
    expect((await owner.agent.get(`/api/v1/guardrails/${first}`)).body.agent_count).toBe(1);
    const listed = await owner.agent.get('/api/v1/agents/?limit=1000');
    expect(listed.body.find((item: TAgent) => item.id === agent.id).resources.guardrail_ids).toEqual([first, second]);
  });

  it('answers 422 naming each id that is unknown or of another workspace, on create and on PATCH', async () => {
    const mine = await createGuardrail(owner);
    const theirs = await createGuardrail(stranger);
    const unknown = randomUUID();
    const created = await owner.agent
      .post('/api/v1/agents/')
      .send(agentBody({ guardrail_ids: [mine, theirs, unknown] }));
    expectProblemShape(created, 422);
    expect(created.body.errors).toEqual([
      { path: 'resources.guardrail_ids[1]', message: `No guardrail with id ${theirs} in this workspace` },
      { path: 'resources.guardrail_ids[2]', message: `No guardrail with id ${unknown} in this workspace` },
    ]);

    const agent = await createAgent(owner, [mine]);
    const patched = await owner.agent
      .patch(`/api/v1/agents/${agent.id}`)
      .send(agentBody({ guardrail_ids: [theirs] }, { name: agent.name }));
    expectProblemShape(patched, 422);
    expect(patched.body.errors.map((error: { path: string }) => error.path)).toEqual(['resources.guardrail_ids[0]']);
    expect((await readAgent(owner, agent.id)).resources.guardrail_ids).toEqual([mine]);
  });

  it('answers 422 to a duplicate id and to one that is not a UUID', async () => {
    const mine = await createGuardrail(owner);
    const duplicate = await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [mine, mine] }));
    expectProblemShape(duplicate, 422);
    expect(duplicate.body.errors).toEqual([{ path: 'resources.guardrail_ids[1]', message: 'Duplicate guardrail id' }]);
    expectProblemShape(await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: ['nope'] })), 422);
  });

  it('a PATCH of the agent replaces its guardrails, and detaching them lets them be deleted', async () => {
    const [first, second] = [await createGuardrail(owner), await createGuardrail(owner)];
    const agent = await createAgent(owner, [first]);
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
    const phrases = Array.from({ length: 200 }, (_, index) => `${index}`.padEnd(200, 'x'));
    const rules = ['a', 'b', 'c', 'd'].map((name) => ({ ...WORDS, name, phrases }));
    const [big, bigger] = [await createGuardrail(owner, { rules }), await createGuardrail(owner, { rules })];
    expect(JSON.stringify(rules).length * 2).toBeGreaterThan(ENGINE_CONFIG_MAX_BYTES);
    const one = await createAgent(owner, [big]);
    const both = await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [big, bigger] }));
    expectProblemShape(both, 422);
    expect(both.body.errors).toEqual([{ path: 'engine_config', message: expect.stringContaining('bytes') }]);
    const patched = await owner.agent
      .patch(`/api/v1/agents/${one.id}`)
      .send(agentBody({ guardrail_ids: [big, bigger] }, { name: one.name }));
    expectProblemShape(patched, 422);
    expect((await readAgent(owner, one.id)).resources.guardrail_ids).toEqual([big]);
  });
});

describe('model judges, which need the agent’s model', () => {
  it('an LLM agent may name a guardrail with one; another framework gets 422 naming the rule', async () => {
    const judged = await createGuardrail(owner, { rules: [WORDS, JUDGE] });
    expect((await createAgent(owner, [judged])).engine_config.guardrails[0]?.rules).toHaveLength(2);

    const custom = await owner.agent.post('/api/v1/agents/').send(agentBody({ guardrail_ids: [judged] }, CUSTOM));
    expectProblemShape(custom, 422);
    expect(custom.body.errors).toEqual([
      {
        path: 'resources.guardrail_ids[0]',
        message: expect.stringMatching(/model_judge rule "judge".*only LLM agents/),
      },
    ]);
  });

  it('an LLM agent naming one cannot become another framework (422)', async () => {
    const judged = await createGuardrail(owner, { rules: [JUDGE] });
    const agent = await createAgent(owner, [judged]);
    const moved = await owner.agent
      .patch(`/api/v1/agents/${agent.id}`)
      .send(agentBody({ guardrail_ids: [judged] }, { ...CUSTOM, name: agent.name }));
    expectProblemShape(moved, 422);
    expect((await readAgent(owner, agent.id)).framework).toBe('LLM');
  });

  it('a PATCH adding one to a guardrail that a non-LLM agent names is 422 naming the rule and the agent', async () => {
    const guardrail = await createGuardrail(owner, { rules: [WORDS] });
    const custom = await createAgent(owner, [guardrail], CUSTOM);
    const patched = await owner.agent
      .patch(`/api/v1/guardrails/${guardrail}`)
      .send(guardrailBody({ rules: [WORDS, JUDGE] }));
    expectProblemShape(patched, 422);
    expect(patched.body.errors).toEqual([
      {
        path: 'guardrail.rules[1]',
        message: expect.stringContaining(`"judge" cannot apply to agents "${custom.name}"`),
      },
    ]);
    expect((await readAgent(owner, custom.id)).engine_config_version).toBe(1);
    const other = await createGuardrail(owner, { rules: [WORDS] });
    expect(
      (await owner.agent.patch(`/api/v1/guardrails/${other}`).send(guardrailBody({ rules: [JUDGE] }))).status,
    ).toBe(200);
  });
});
