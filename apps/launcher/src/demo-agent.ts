// The demo that `pnpm start` sets up on first start: a user with a workspace, an MCP server entry for
// the bundled "everything" MCP server, and an LLM agent using them, placed on the local pool. Later
// starts sign in and reuse it.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { localDataDir } from '@agentplane/db/embedded';
import type { ManagerClient } from '@agentplane/manager-client';

export const DEMO_EMAIL = 'demo@agentplane.local';

type DemoState = { email: string; password: string; agentId: string; mcpServerId: string };

export type DemoAgent = {
  agentId: string;
  mcpServerId: string;
  email: string;
  /** Set on the start that created the account, the only time the password is printed. */
  newPassword: string | undefined;
  token: string;
  /** Where the agent answers: its base URL on the pool, as the manager derives it. */
  engineUrl: string;
};

/** Where the demo's state (its credentials) is kept: demo.json in the local data directory. */
export function demoStateFile(): string {
  return path.join(localDataDir(), 'demo.json');
}

async function readState(): Promise<DemoState | undefined> {
  try {
    return JSON.parse(await readFile(demoStateFile(), 'utf8')) as DemoState;
  } catch {
    return undefined;
  }
}

/** The bundled MCP server's command line: run by the engine over stdio with the same Node. */
export function everythingCommandLine() {
  const require = createRequire(import.meta.url);
  const entry = path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
  return { command: process.execPath, args: [entry, 'stdio'] };
}

function everythingServer() {
  return { name: 'everything', transport: 'stdio', ...everythingCommandLine() };
}

/**
 * A real model when OPENAI_API_KEY is set, otherwise the deterministic mock. The agent names neither a
 * key nor a server: the engine sends its own OPENAI_API_KEY to its own OPENAI_BASE_URL.
 */
function demoModel() {
  if (!process.env.OPENAI_API_KEY) return { provider: 'mock', name: 'echo' };
  return { provider: 'openai', name: process.env.OPENAI_MODEL ?? 'gpt-4o-mini' };
}

function agentBody(mcpServerId: string, pool: string) {
  return {
    name: 'Demo agent',
    description: 'Created by pnpm start',
    framework: 'LLM',
    agent: {
      model: demoModel(),
      instructions: 'You are the Agentplane demo agent. Use the tools of the everything MCP server when they help.',
    },
    resources: { integration_ids: [], mcp_server_ids: [mcpServerId], sso_id: null },
    // Explicit, so that a demo agent of an older start, which ran on a dedicated engine, moves to the pool.
    deployment: { mode: 'pool', pool },
    engine_url: null,
  };
}

type AgentResponse = { id: string; engine_url: string | null };

async function createDemo(api: ManagerClient, pool: string): Promise<{ state: DemoState; agent: AgentResponse }> {
  const password = randomBytes(12).toString('base64url');
  await api.expect(201, 'POST', '/auth/signup', { email: DEMO_EMAIL, password, name: 'Demo' });
  const mcp = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
    name: 'Everything (bundled)',
    mcp_server: everythingServer(),
  });
  const agent = await api.expect<AgentResponse>(201, 'POST', '/agents/', agentBody(mcp.id, pool));
  const state = { email: DEMO_EMAIL, password, agentId: agent.id, mcpServerId: mcp.id };
  await writeFile(demoStateFile(), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return { state, agent };
}

/** Signs in to the demo of an earlier start, or makes it, with its agent on `pool`. */
export async function ensureDemoAgent(api: ManagerClient, pool: string): Promise<DemoAgent> {
  const saved = await readState();
  let state: DemoState;
  let agent: AgentResponse;
  let newPassword: string | undefined;
  if (
    saved &&
    (await api.request('POST', '/auth/login', { email: saved.email, password: saved.password })).status === 200
  ) {
    state = saved;
    // The node path and the model choice follow this machine and this start's environment.
    await api.expect(200, 'PATCH', `/mcp-servers/${state.mcpServerId}`, {
      name: 'Everything (bundled)',
      mcp_server: everythingServer(),
    });
    agent = await api.expect<AgentResponse>(
      200,
      'PATCH',
      `/agents/${state.agentId}`,
      agentBody(state.mcpServerId, pool),
    );
  } else {
    ({ state, agent } = await createDemo(api, pool));
    newPassword = state.password;
  }
  if (agent.engine_url === null) throw new Error(`the demo agent on pool "${pool}" has no engine_url`);
  const token = await api.expect<{ access_token: string }>(201, 'POST', `/agents/${state.agentId}/token`);
  return {
    agentId: state.agentId,
    mcpServerId: state.mcpServerId,
    email: state.email,
    newPassword,
    token: token.access_token,
    engineUrl: agent.engine_url,
  };
}
