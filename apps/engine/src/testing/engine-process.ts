// A real engine as a child process (the built dist/server.js), for fault tests that kill it: it
// listens on port 0 and reports its URL over IPC (server-kit's serve). Its stderr is kept, to say why
// it stopped when it stops too early.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '@agentplane/testing';
import { BASE_ENV } from './test-engine.js';

const ENTRY = fileURLToPath(new URL('../../dist/server.js', import.meta.url));

export type EngineProcess = {
  url: string;
  /** Sends `signal` and resolves once the process has exited. */
  kill: (signal: NodeJS.Signals) => Promise<void>;
};

export type EngineProcessOptions = {
  /** Its stdout a pipe this process never reads, as when the engine's supervisor is gone: logs back up. */
  unreadStdout?: boolean;
};

export async function startEngineProcess(
  env: Record<string, string>,
  options: EngineProcessOptions = {},
): Promise<EngineProcess> {
  const child: ChildProcess = spawn(process.execPath, [ENTRY], {
    // Only what the engine is given here: the test runner's own variables (NODE_OPTIONS, a
    // DATABASE_URL) are not the engine's.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...BASE_ENV, ...env },
    stdio: ['ignore', options.unreadStdout ? 'pipe' : 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = once(child, 'exit');
  const [message] = (await Promise.race([
    once(child, 'message'),
    exited.then(([code]) => Promise.reject(new Error(`the engine exited (code ${code}) before listening: ${stderr}`))),
  ])) as [{ url: string }];
  return {
    url: message.url,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** An engine process once it serves its config; added to `processes`, for the suite to kill at the end. */
export async function startServingEngineProcess(
  env: Record<string, string>,
  processes: EngineProcess[],
): Promise<EngineProcess> {
  const engine = await startEngineProcess(env);
  processes.push(engine);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  return engine;
}
