// The real @modelcontextprotocol/server-everything as a test peer: over stdio (spawned by the engine)
// or over the network (spawned here on a loopback port of its own choosing).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TEngineConfigInput, TMcpServerConfigInput, TObservabilityConfigInput } from '@agentplane/contracts';
import { waitUntil } from '@agentplane/testing';
import { makeLlmEngineConfig } from './engine-configs.js';

const packageJson = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
export const EVERYTHING_ENTRY = path.join(path.dirname(packageJson), 'dist', 'index.js');

/** The command line of everythingStdioServer, as an MCP_STDIO_COMMANDS entry. */
export const EVERYTHING_STDIO_COMMAND = { command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] };

/** The engine env that permits it: a test that spawns the stdio server says so, as an operator would. */
export const ALLOW_EVERYTHING_STDIO = { MCP_STDIO_COMMANDS: JSON.stringify([EVERYTHING_STDIO_COMMAND]) };

/** A stdio server config that runs server-everything with this process's Node (22 under jest). */
export function everythingStdioServer(overrides: Partial<TMcpServerConfigInput> = {}): TMcpServerConfigInput {
  return {
    name: 'everything',
    transport: 'stdio',
    ...EVERYTHING_STDIO_COMMAND,
    ...overrides,
  };
}

export type EverythingHttpServer = { url: string; stop: () => Promise<void> };

// The server binds PORT and logs PORT back, so with PORT=0 it cannot say which port it got. This
// preload reports the bound port through Node's net.server.listen tracing channel, so the child can
// bind port 0 itself: a port probed free beforehand could be taken by another process first.
const REPORT_PORT = `data:text/javascript,${encodeURIComponent(`
  import { tracingChannel } from 'node:diagnostics_channel';
  tracingChannel('net.server.listen').subscribe({
    asyncEnd: ({ server }) => process.stderr.write('test peer bound port ' + server.address().port + '\\n'),
  });`)}`;
const BOUND_PORT = /test peer bound port (\d+)/;

const HTTP_MODES = {
  streamableHttp: { path: '/mcp', ready: 'listening on port' },
  sse: { path: '/sse', ready: 'running on port' },
};

/** server-everything over the network: `streamableHttp` (url ends in /mcp) or the older `sse` (/sse). */
export async function startEverythingHttpServer(
  mode: keyof typeof HTTP_MODES = 'streamableHttp',
): Promise<EverythingHttpServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', REPORT_PORT, EVERYTHING_ENTRY, mode], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (data: Buffer) => {
    output += data.toString();
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  const started = () => output.includes(HTTP_MODES[mode].ready) && BOUND_PORT.test(output);
  try {
    await waitUntil(() => started() || child.exitCode !== null, { what: `server-everything (${mode}) to listen` });
  } catch (error) {
    await stop();
    throw error;
  }
  if (!started()) throw new Error(`server-everything did not start: ${output}`);
  return { url: `http://127.0.0.1:${BOUND_PORT.exec(output)?.[1]}${HTTP_MODES[mode].path}`, stop };
}

/** The tool of server-everything that approval tests have the model call, and that their policy wants approved. */
export const EVERYTHING_SUM = 'everything__get-sum';

/**
 * An LLM agent on the model at `modelUrl` with server-everything's tools, whose policy wants get-sum
 * approved, and whose tokens come from `issuer`: the agent of the tool approval suites.
 */
export function makeSumApprovalConfig(options: {
  agentId: string;
  workspaceId: string;
  modelUrl: string;
  issuer: { issuer: string; audience: string };
  observability?: TObservabilityConfigInput;
}): TEngineConfigInput {
  const { issuer, audience } = options.issuer;
  return makeLlmEngineConfig({
    agentId: options.agentId,
    workspaceId: options.workspaceId,
    model: { provider: 'openai', name: 'm', baseUrl: options.modelUrl },
    mcpServers: [everythingStdioServer()],
    tools: { approval: ['*__get-sum'] },
    sso: { issuer, audience, algorithms: ['RS256'] },
    ...(options.observability === undefined ? {} : { observability: options.observability }),
  });
}
