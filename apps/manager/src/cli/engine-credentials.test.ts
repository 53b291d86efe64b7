// The operator's way to engines' credentials, against the suite's database: what it prints opens the
// agent's role (or the pool's), and a second run shuts the first password out.
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import { createAgentSecretBox, engineRoleName, poolRoleName } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody } from '../testing/resource-fixtures.js';
import { runEngineCredentials } from './engine-credentials.js';

const POOL = uniquePoolName();
const ENGINE_POOLS = `${POOL}=http://127.0.0.1:8101`;

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp({ ENGINE_POOLS });
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
    env: { DATABASE_URL: ctx.database.url, SECRETS_KEY: TEST_SECRETS_KEY, ENGINE_POOLS },
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

  it("prints a pool's env file, whose login serves the pool's agents and whose key opens their configs", async () => {
    const owner = await signUpUser(ctx.app);
    const mcp = await owner.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
    const body = agentBody({ mcp_server_ids: [mcp.body.id] }, { deployment: { mode: 'pool', pool: POOL } });
    const agentId = (await owner.agent.post('/api/v1/agents/').send(body)).body.id as string;
    const first = await run(['--pool', POOL]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const env = envFile(first.stdout);
    expect(Object.keys(env)).toEqual(['ENGINE_POOL', 'DATABASE_URL', 'ENGINE_POOL_KEY']);
    expect(env.ENGINE_POOL).toBe(POOL);
    const client = await ctx.database.connectClient({ url: env.DATABASE_URL });
    try {
      expect((await client.query('SELECT current_user AS user')).rows[0]?.user).toBe(poolRoleName(POOL));
      expect((await client.query('SELECT agent_id FROM engine_placements()')).rows).toEqual([{ agent_id: agentId }]);
    } finally {
      await client.end();
    }
    const row = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
    const box = createAgentSecretBox(env.ENGINE_POOL_KEY as string, agentId);
    expect(mapEngineConfigSecrets(row.config as TEngineConfig, box.open).mcp_servers[0]?.headers).toEqual({
      Authorization: 'Bearer mcp-secret-header',
    });

    const second = await run(['--pool', POOL, '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ pool: POOL, pool_key: env.ENGINE_POOL_KEY });
    await expect(ctx.database.connectClient({ url: env.DATABASE_URL })).rejects.toMatchObject({ code: '28P01' });
  });

  it('refuses a pool ENGINE_POOLS does not list, a malformed one, and both targets at once, on stderr', async () => {
    const unknown = await run(['--pool', 'elsewhere']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/No engine pool is named "elsewhere" in ENGINE_POOLS/);
    const malformed = await run(['--pool', 'Not A Pool']);
    expect(malformed).toMatchObject({ code: 1, stdout: '' });
    expect(malformed.stderr).toMatch(/--pool must be the name of one of ENGINE_POOLS/);
    const both = await run(['--pool', POOL, '--agent', randomUUID()]);
    expect(both).toMatchObject({ code: 1, stdout: '' });
    expect(both.stderr).toMatch(/not both/);
  });
});
