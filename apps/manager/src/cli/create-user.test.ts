// Runs the built CLI as an operator would, against the suite's database, then signs in through the API.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ZMe } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { expectProblemShape, type ManagerTestContext, startManagerTestApp } from '../testing/manager-test-app.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

type CliResult = { code: number | null; stdout: string; stderr: string };

/** The suite runs the build (turbo builds before tests); running it against an old build would prove nothing. */
function requireFreshBuild(): void {
  for (const name of ['main', 'create-user']) {
    const built = fileURLToPath(new URL(`../../dist/cli/${name}.js`, import.meta.url));
    const source = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) {
      throw new Error(`${built} is missing or older than its source: run "pnpm build" in apps/manager first`);
    }
  }
}

let ctx: ManagerTestContext;
beforeAll(async () => {
  requireFreshBuild();
  ctx = await startManagerTestApp({ ALLOW_SIGNUP: 'false' });
});
afterAll(() => ctx?.close());

function runCli(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    // A clean environment: only what an operator's shell would pass, plus the database.
    env: { PATH: process.env.PATH, DATABASE_URL: ctx.database.url, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // The CLI may exit before reading stdin (a usage error); that must not fail the test with EPIPE.
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let counter = 0;
const freshEmail = () => `cli-${Date.now()}-${counter++}@example.test`;

function logIn(email: string, password: string) {
  return request(ctx.app).post('/api/v1/auth/login').send({ email, password });
}

describe('agentplane-manager create-user', () => {
  it('creates a user who owns a named workspace and can sign in, while public sign-up answers 403', async () => {
    const password = 'correct horse battery staple';
    const result = await runCli(
      ['create-user', '--email', '  Ada@Example.TEST ', '--password-stdin', '--name', 'Ada', '--workspace', 'Acme'],
      { stdin: `${password}\n` },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const userId = /^user_id=(.+)$/m.exec(result.stdout)?.[1];
    const workspaceId = /^workspace_id=(.+)$/m.exec(result.stdout)?.[1];
    expect(userId).toMatch(UUID);
    expect(workspaceId).toMatch(UUID);
    expect(result.stdout).toContain('ada@example.test');
    expect(result.stdout + result.stderr).not.toContain(password);

    const login = await logIn('ada@example.test', password);
    expect(login.status).toBe(200);
    expect(ZMe.parse(login.body)).toEqual({
      user: { id: userId, email: 'ada@example.test', name: 'Ada', platform_operator: false },
      workspaces: [{ id: workspaceId, name: 'Acme', role: 'owner' }],
      default_workspace_id: workspaceId,
    });

    const signup = await request(ctx.app)
      .post('/api/v1/auth/signup')
      .send({ email: freshEmail(), password: 'another long password' });
    expectProblemShape(signup, 403);
    expect(signup.body.detail).toMatch(/sign-up is disabled/i);
  });

  it('drops only the trailing newline: spaces are part of the password, and a CRLF ending is dropped too', async () => {
    const email = freshEmail();
    const password = '  spaced out password  ';
    const result = await runCli(['create-user', '--email', email, '--password-stdin'], { stdin: `${password}\r\n` });
    expect(result.code).toBe(0);
    expect((await logIn(email, password)).status).toBe(200);
    expectProblemShape(await logIn(email, password.trim()), 401);
  });

  it('names the personal workspace after the user when --workspace is not given', async () => {
    const email = freshEmail();
    const result = await runCli(['create-user', '--email', email, '--password-stdin', '--name', 'Grace'], {
      stdin: 'a long password',
    });
    expect(result.code).toBe(0);
    const workspaceId = /^workspace_id=(.+)$/m.exec(result.stdout)?.[1] as string;
    const workspace = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
    expect(workspace.name).toBe("Grace's workspace");
  });

  it('when the email is already registered, it exits 1 saying it already exists and changes nothing', async () => {
    const email = freshEmail();
    expect(
      (await runCli(['create-user', '--email', email, '--password-stdin'], { stdin: 'first password' })).code,
    ).toBe(0);
    const again = await runCli(['create-user', '--email', email.toUpperCase(), '--password-stdin'], {
      stdin: 'second password',
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(again.stdout).toBe('');
    expect((await logIn(email, 'first password')).status).toBe(200);
    expect(await ctx.database.prisma.user.count({ where: { email } })).toBe(1);
  });

  it.each([
    ['7 characters', 'abcdefg', /password.*8/],
    ['257 characters', 'x'.repeat(257), /password.*256/],
    ['nothing', '', /password.*8/],
    ['two lines', 'first line\nsecond line\n', /single line/],
  ])('when the password on stdin is %s, it exits 1 and creates no user', async (_label, stdin, message) => {
    const email = freshEmail();
    const result = await runCli(['create-user', '--email', email, '--password-stdin'], { stdin });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(await ctx.database.prisma.user.count({ where: { email } })).toBe(0);
  });

  it('accepts a password of exactly 8 and of exactly 256 characters', async () => {
    for (const password of ['12345678', 'y'.repeat(256)]) {
      const email = freshEmail();
      expect((await runCli(['create-user', '--email', email, '--password-stdin'], { stdin: password })).code).toBe(0);
      expect((await logIn(email, password)).status).toBe(200);
    }
  });

  it('refuses a password on the command line without echoing it', async () => {
    const email = freshEmail();
    for (const args of [['--password', 'secret-in-argv'], ['--password=secret-in-argv']]) {
      const result = await runCli(['create-user', '--email', email, ...args], { stdin: 'a long password' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/--password-stdin/);
      expect(result.stdout + result.stderr).not.toContain('secret-in-argv');
    }
    expect(await ctx.database.prisma.user.count({ where: { email } })).toBe(0);
  });

  it.each([
    ['--password-stdin is missing', ['--email', 'x@example.test'], /--password-stdin is required/],
    ['--email is missing', ['--password-stdin'], /--email is required/],
    ['the email is invalid', ['--email', 'not-an-email', '--password-stdin'], /--email: .*email/i],
    ['the name is blank', ['--email', 'x@example.test', '--password-stdin', '--name', '  '], /--name/],
    [
      'the workspace name is blank',
      ['--email', 'x@example.test', '--password-stdin', '--workspace', ''],
      /--workspace/,
    ],
    ['an option is unknown', ['--email', 'x@example.test', '--password-stdin', '--role', 'owner'], /--role/],
  ])('when %s, it exits 1 with a message naming the problem', async (_label, args, message) => {
    const result = await runCli(['create-user', ...args], { stdin: 'a long password' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(await ctx.database.prisma.user.count({ where: { email: 'x@example.test' } })).toBe(0);
  });

  it('when DATABASE_URL is missing or not a postgresql URL, it exits 1 naming DATABASE_URL', async () => {
    for (const env of [{ DATABASE_URL: undefined }, { DATABASE_URL: 'mysql://localhost/x' }]) {
      const result = await runCli(['create-user', '--email', freshEmail(), '--password-stdin'], {
        stdin: 'a long password',
        env,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/DATABASE_URL/);
    }
  });

  it('prints usage for --help, and exits 1 for an unknown command or none', async () => {
    const help = await runCli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/create-user/);

    const commandHelp = await runCli(['create-user', '--help']);
    expect(commandHelp.code).toBe(0);
    expect(commandHelp.stdout).toMatch(/--password-stdin/);

    const unknown = await runCli(['delete-everything']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command "delete-everything"/);

    const none = await runCli([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Usage: agentplane-manager/);
  });
});
