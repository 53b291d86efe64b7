// One of our services as a child process (an app's built entry point, dist/server.js): it listens on
// port 0 and reports its URL over IPC (server-kit's serve). The tail of its stderr is kept, to say why
// it stopped when it stops too early. Tests of one app run another this way, never by importing it.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const STDERR_KEPT = 4000;

export type ServiceProcess = {
  url: string;
  /** The last of what it wrote to stderr. */
  stderr: () => string;
  /** Sends `signal` and resolves once the process has exited. */
  kill: (signal: NodeJS.Signals) => Promise<void>;
};

export type ServiceProcessOptions = {
  /** Its stdout a pipe this process never reads, as when the service's supervisor is gone: logs back up. */
  unreadStdout?: boolean;
};

/** Starts `entry` with exactly `env` (nothing of the test runner's own) and resolves once it listens. */
export async function startServiceProcess(
  entry: string,
  env: Record<string, string>,
  options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [entry], {
    env,
    stdio: ['ignore', options.unreadStdout ? 'pipe' : 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  const exited = once(child, 'exit');
  const [message] = (await Promise.race([
    once(child, 'message'),
    exited.then(([code]) => Promise.reject(new Error(`${entry} exited (code ${code}) before listening: ${stderr}`))),
  ])) as [{ url: string }];
  return {
    url: message.url,
    stderr: () => stderr,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
