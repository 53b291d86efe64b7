// `agentplane-manager operator`: the one way to a platform operator account, who may issue engine
// credentials through the API; taken back, at once.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
} from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';
import { runOperator } from './operator.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  let [out, err] = ['', ''];
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await runOperator(args, {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { DATABASE_URL: ctx.database.url, SECRETS_KEY: TEST_SECRETS_KEY },
  });
  return { code, stdout: out, stderr: err };
}

describe('agentplane-manager operator', () => {
  it('--grant makes a user a platform operator, who may issue engine credentials; --revoke takes it back at once', async () => {
    const user = await signUpUser(ctx.app);
    const agentId = (await user.agent.post('/api/v1/agents/').send(agentBody())).body.id as string;
    const issue = () => user.agent.post(`/api/v1/agents/${agentId}/engine-credentials`);
    expectProblemShape(await issue(), 403);
    expect((await user.agent.get('/api/v1/auth/me')).body.user.platform_operator).toBe(false);

    const granted = await run(['--grant', user.email.toUpperCase()]);
    expect(granted).toEqual({ code: 0, stdout: `${user.email} is now a platform operator\n`, stderr: '' });
    expect((await user.agent.get('/api/v1/auth/me')).body.user.platform_operator).toBe(true);
    expect((await issue()).status).toBe(201);

    const revoked = await run(['--revoke', user.email]);
    expect(revoked).toEqual({ code: 0, stdout: `${user.email} is no longer a platform operator\n`, stderr: '' });
    expectProblemShape(await issue(), 403);
  });

  it('refuses an unknown email, a malformed one, both options or neither, on stderr', async () => {
    const unknown = await run(['--grant', 'nobody@example.test']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/no user has the email nobody@example.test/);
    for (const args of [['--grant', 'not-an-email'], ['--grant', 'a@example.test', '--revoke', 'b@example.test'], []]) {
      const result = await run(args);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(/Run "agentplane-manager operator --help"/);
    }
    expect(await ctx.database.prisma.user.count({ where: { platformOperator: true } })).toBe(0);
  });

  it('prints its usage with --help', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--grant <email> \| --revoke <email>/);
  });
});
