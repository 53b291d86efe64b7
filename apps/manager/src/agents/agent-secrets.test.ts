// An LLM agent's model.apiKey is a secret like an integration token: sealed in the agent row and in the
// published engine config, given back as a string to the workspace's members.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ManagerTestContext, signUpUser, startManagerTestApp } from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

async function storedText(agentId: string): Promise<string> {
  const rows = await ctx.database.prisma.$queryRaw<unknown[]>`
    SELECT a.config AS agent, e.config AS published FROM agents a JOIN engine_configs e ON e.agent_id = a.id
    WHERE a.id = ${agentId}::uuid`;
  return JSON.stringify(rows);
}

const withKey = (apiKey: string) =>
  agentBody({}, { agent: { model: { provider: 'openai', name: 'gpt-4o-mini', apiKey }, instructions: 'Be brief.' } });

describe('model.apiKey', () => {
  it('is sealed at rest and in the engine config, and read back in plaintext by members', async () => {
    const user = await signUpUser(ctx.app);
    const created = await user.agent.post('/api/v1/agents/').send(withKey('sk-plain-model-key-1'));
    expect(created.status).toBe(201);
    expect(created.body.agent.model.apiKey).toBe('sk-plain-model-key-1');
    expect(created.body.engine_config.agent.config.model.apiKey).toBe('sk-plain-model-key-1');
    let stored = await storedText(created.body.id);
    expect(stored).not.toContain('sk-plain-model-key-1');
    expect(stored.match(/enc:v1:/g)).toHaveLength(2);
    // The rest of the config stays readable.
    expect(stored).toContain('Be brief.');

    const patched = await user.agent.patch(`/api/v1/agents/${created.body.id}`).send(withKey('sk-plain-model-key-2'));
    expect(patched.status).toBe(200);
    expect(patched.body.engine_config_version).toBe(2);
    stored = await storedText(created.body.id);
    expect(stored).not.toContain('sk-plain-model-key-2');

    const read = await user.agent.get(`/api/v1/agents/${created.body.id}`);
    expect(read.body.agent.model.apiKey).toBe('sk-plain-model-key-2');
    const listed = await user.agent.get('/api/v1/agents/');
    expect(listed.body[0].agent.model.apiKey).toBe('sk-plain-model-key-2');
  });

  it('is not republished when the same key is sent again', async () => {
    const user = await signUpUser(ctx.app);
    const created = await user.agent.post('/api/v1/agents/').send(withKey('sk-same'));
    const again = await user.agent
      .patch(`/api/v1/agents/${created.body.id}`)
      .send({ ...withKey('sk-same'), name: created.body.name });
    expect(again.status).toBe(200);
    expect(again.body.engine_config_version).toBe(1);
  });
});
