// The operator's way to an engine's credentials, against the suite's database: what it prints opens
// the agent's role, and a second run shuts the first password out.
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { engineRoleName } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
} from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';
import { runEngineCredentials } from './engine-credentials.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const read = (stream: PassThrough) => {
    let text = '';
    stream.on('data', (chunk) => (text += chunk));
    return () => text;
  };
  const [out, err] = [read(stdout), read(stderr)];
  const code = await runEngineCredentials(args, {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { DATABASE_URL: ctx.database.url, SECRETS_KEY: TEST_SECRETS_KEY },
  });
  return { code, stdout: out(), stderr: err() };
}

const envFile = (text: string) =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s, 2)),
  );

describe('agentplane-manager engine-credentials', () => {
  it("prints the agent's env file, and a second run rotates the password", async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = (await owner.agent.post('/api/v1/agents/').send(agentBody())).body.id as string;
    const first = await run(['--agent', agentId]);
    expect(first.code).toBe(0);
    const env = envFile(first.stdout);
    expect(Object.keys(env)).toEqual(['AGENT_ID', 'DATABASE_URL', 'AGENT_KEY']);
    expect(env.AGENT_ID).toBe(agentId);
    const client = await ctx.database.connectClient({ url: env.DATABASE_URL });
    expect((await client.query('SELECT current_user AS user')).rows[0]?.user).toBe(engineRoleName(agentId));
    await client.end();

    const second = await run(['--agent', agentId, '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ agent_id: agentId, agent_key: env.AGENT_KEY });
    await expect(ctx.database.connectClient({ url: env.DATABASE_URL })).rejects.toMatchObject({ code: '28P01' });
  });

  it('refuses a missing or malformed agent id and an unknown agent, on stderr', async () => {
    for (const args of [[], ['--agent', 'nope']]) {
      const result = await run(args);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(/--agent must be the UUID of an agent/);
    }
    const unknown = await run(['--agent', randomUUID()]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/No such agent/);
  });
});
