// The engine's own check of what it spawns: a config written straight into engine_configs, around the
// manager, still runs only the command lines MCP_STDIO_COMMANDS permits, with no loader variables and
// a cwd that realpath puts inside MCP_STDIO_CWD_ROOT. Each refused server would write a marker file.
import { existsSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { TMcpServerConfigInput } from '@agentplane/contracts';
import { ZMcpServerConfig } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, ScratchDirs, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import {
  ALLOW_EVERYTHING_STDIO,
  EVERYTHING_STDIO_COMMAND,
  everythingStdioServer,
} from '../testing/everything-server.js';
import { createLoopbackEgress } from '../testing/loopback-egress.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { connectMcpToolset } from './mcp-toolset.js';

type Health = {
  status: string;
  config_version: number;
  mcp: { name: string; status: string; error?: string; error_id?: string }[];
};

const scratch = new ScratchDirs();
let dir: string;
let database: TestDatabase;
let engine: RunningEngine | undefined;
let agentId: string;
let workspaceId: string;

/** Node running code that leaves `marker` behind: what an attacker's stdio server would do first. */
const writesMarker = (marker: string) => ({
  command: process.execPath,
  args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'spawned')`],
});

beforeAll(async () => {
  dir = await scratch.make('engine-stdio-policy-');
  database = await createTestDatabase();
  workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
});

afterAll(async () => {
  await engine?.shutdown();
  await database?.drop();
  await scratch.removeAll();
});

async function publish(version: number, mcpServers: TMcpServerConfigInput[]) {
  const config = makeLlmEngineConfig({ agentId, workspaceId, mcpServers });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, version, config);
}

async function health(): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${(engine as RunningEngine).url}/health`);
  return { status: response.status, body: (await response.json()) as Health };
}

describe('a config written around the manager', () => {
  it('spawns only the permitted command line: another one is reported failed and never runs', async () => {
    const marker = path.join(dir, 'not-permitted');
    await publish(1, [everythingStdioServer(), { name: 'attacker', transport: 'stdio', ...writesMarker(marker) }]);
    engine = await startDatabaseEngine(database, agentId, ALLOW_EVERYTHING_STDIO);
    await waitUntil(async () => (await health()).body.config_version === 1, { what: 'version 1 to be applied' });
    const { body } = await health();
    expect(body.status).toBe('degraded');
    expect(body.mcp).toEqual([
      { name: 'everything', status: 'connected' },
      {
        name: 'attacker',
        status: 'failed',
        error: expect.stringMatching(/not permitted by MCP_STDIO_COMMANDS/),
        error_id: expect.any(String),
      },
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it('is not applied at all when a stdio server sets a loader variable, so nothing runs', async () => {
    const marker = path.join(dir, 'node-options');
    const preload = `data:text/javascript,${encodeURIComponent(
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'preloaded');`,
    )}`;
    await publish(2, [everythingStdioServer({ env: { NODE_OPTIONS: `--import=${preload}` } })]);
    await waitUntil(async () => (await health()).body.status === 'degraded' && (await rejectedVersion()) === 2, {
      what: 'version 2 to be rejected',
    });
    expect((await health()).body.config_version).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });
});

async function rejectedVersion(): Promise<number | undefined> {
  const response = await fetch(`${(engine as RunningEngine).url}/health`);
  const body = (await response.json()) as { rejected_config?: { version: number; reason: string } };
  return body.rejected_config?.version;
}

describe('the working directory of a stdio server', () => {
  const logger = createLogger({ name: 'stdio-policy-test', level: 'silent' });
  const egress = createLoopbackEgress();
  afterAll(() => egress.close());
  const commands = [{ ...EVERYTHING_STDIO_COMMAND, extraArgs: false as const }];
  const connect = async (cwd: string, cwdRoot: string | undefined) => {
    const server = ZMcpServerConfig.parse(everythingStdioServer({ cwd }));
    const toolset = await connectMcpToolset([server], { logger, stdio: { commands, cwdRoot }, egress });
    await toolset.close();
    return toolset.statuses()[0];
  };

  it('is refused when the operator set no MCP_STDIO_CWD_ROOT', async () => {
    await expect(connect(dir, undefined)).resolves.toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/MCP_STDIO_CWD_ROOT is not set/),
    });
  });

  it('is refused when a symlink inside the root leads out of it, and used when it stays inside', async () => {
    const root = path.join(dir, 'root');
    await mkdir(path.join(root, 'inside'), { recursive: true });
    await symlink(path.dirname(root), path.join(root, 'out'));
    await expect(connect(path.join(root, 'out'), root)).resolves.toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/not an existing directory inside MCP_STDIO_CWD_ROOT/),
    });
    await expect(connect(path.join(root, 'inside'), root)).resolves.toMatchObject({ status: 'connected' });
  });
});
