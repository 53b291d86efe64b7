// The real @modelcontextprotocol/server-everything as a test peer: over stdio (spawned by the engine)
// or over streamable HTTP (spawned here on a free loopback port).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TMcpServerConfigInput } from '@agentplane/contracts';
import { findFreePort } from './free-port.js';
import { waitUntil } from './wait-until.js';

const packageJson = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
export const EVERYTHING_ENTRY = path.join(path.dirname(packageJson), 'dist', 'index.js');

/** A stdio server config that runs server-everything with this process's Node (22 under jest). */
export function everythingStdioServer(overrides: Partial<TMcpServerConfigInput> = {}): TMcpServerConfigInput {
  return {
    name: 'everything',
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING_ENTRY, 'stdio'],
    ...overrides,
  };
}

export type EverythingHttpServer = { url: string; stop: () => Promise<void> };

const HTTP_MODES = {
  streamableHttp: { path: '/mcp', ready: 'listening on port' },
  sse: { path: '/sse', ready: 'running on port' },
};

/** server-everything over the network: `streamableHttp` (url ends in /mcp) or the older `sse` (/sse). */
export async function startEverythingHttpServer(
  mode: keyof typeof HTTP_MODES = 'streamableHttp',
): Promise<EverythingHttpServer> {
  // The server takes its port from PORT and has no way to report a port 0 choice, hence a free port first.
  const port = await findFreePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_ENTRY, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (data: Buffer) => {
    output += data.toString();
  });
  await waitUntil(() => output.includes(HTTP_MODES[mode].ready) || child.exitCode !== null, {
    what: `server-everything (${mode}) to listen`,
  });
  if (child.exitCode !== null) throw new Error(`server-everything exited: ${output}`);
  return {
    url: `http://127.0.0.1:${port}${HTTP_MODES[mode].path}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
