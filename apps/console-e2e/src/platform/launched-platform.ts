// The platform as `pnpm start` starts it: the launcher's own entry point as a child process (the build is
// turbo's job, as in `pnpm start`), on a test database and a data directory of the suite's, ports 0.
// What a newcomer reads in its welcome text is what the tests use: the console's URL and the demo sign-in.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '@agentplane/testing';

const LAUNCHER = fileURLToPath(new URL('../../../launcher/dist/main.js', import.meta.url));
const STOP_TIMEOUT_MS = 30_000;

export type LaunchedPlatform = {
  /** The first URL the welcome text prints, where a browser opens the console (its origin, no path). */
  consoleUrl: string;
  /** The pool engine's origin. */
  engineUrl: string;
  /** The pool's name, where new agents are placed. */
  pool: string;
  demo: { email: string; password: string; agentId: string };
  /** Everything the launcher and its services printed so far, for a failing test's message. */
  output: () => string;
  stop: () => Promise<void>;
};

function parseWelcome(output: string): Omit<LaunchedPlatform, 'pool' | 'output' | 'stop'> {
  const welcome = output.slice(output.indexOf('Agentplane is running'));
  const consoleUrl = welcome.match(/(http:\/\/localhost:\d+)\//)?.[1];
  const engineUrl = welcome.match(/Engine pool:\s+(http:\/\/localhost:\d+)\//)?.[1];
  const signIn = welcome.match(/Sign in as (\S+) with password (\S+)/);
  const agentId = welcome.match(/\(agent ([0-9a-f-]{36})\)/)?.[1];
  if (!consoleUrl || !engineUrl || !signIn?.[1] || !signIn[2] || !agentId) {
    throw new Error(`the launcher's welcome text lacks a URL or the demo sign-in:\n${welcome}`);
  }
  return { consoleUrl, engineUrl, demo: { email: signIn[1], password: signIn[2], agentId } };
}

/** Starts the launcher and resolves once its welcome text is out; reject with its output if it stops. */
export async function launchPlatform(options: {
  databaseUrl: string;
  dataDir: string;
  /** More of the launcher's environment (a suite's egress allowance for its fake model server). */
  env?: Record<string, string>;
}): Promise<LaunchedPlatform> {
  // Pool roles are cluster-wide, and the suites' platforms share the database server.
  const pool = `t_${randomBytes(6).toString('hex')}`;
  const child: ChildProcess = spawn(process.execPath, [LAUNCHER], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      AGENTPLANE_DATA_DIR: options.dataDir,
      MANAGER_PORT: '0',
      ENGINE_PORT: '0',
      ENGINE_POOL: pool,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      // The deterministic mock model and fresh secrets, whatever the developer's shell holds.
      OPENAI_API_KEY: '',
      SECRETS_KEY: '',
      SESSION_SECRET: '',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // SIGTERM lets the launcher stop its manager and engine; only a launcher stuck past that is killed.
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntil(
      () => {
        if (child.exitCode !== null) throw new Error(`the launcher exited (code ${child.exitCode}):\n${output}`);
        return output.includes('Press Ctrl-C to stop.');
      },
      { what: 'the launcher to print its welcome text', timeoutMs: 180_000, intervalMs: 100 },
    );
    return { ...parseWelcome(output), pool, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
