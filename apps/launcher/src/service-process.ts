import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type { LogFormat } from './logs/log-format.js';
import { pipeWithPrefix } from './prefixed-output.js';

export type ServiceProcess = {
  name: string;
  child: ChildProcess;
  /** The URL the service listens on, as it reports once listening; rejects if it exits first. */
  listening: Promise<string>;
  /** Resolves with the exit code once the process has ended, however it ended. */
  exited: Promise<number | null>;
  stop: (timeoutMs: number) => Promise<void>;
};

export function startService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  output: { index: number; format: LogFormat },
): ServiceProcess {
  // Its own process group: a Ctrl-C at the terminal reaches only the launcher, which stops the
  // services in order; the exit hook below still takes them down if the launcher dies first.
  const child = spawn(process.execPath, [entry], {
    // The stdin pipe closes if the launcher dies without stopping the service (SIGKILL): the service then exits.
    env: { ...env, AGENTPLANE_EXIT_WITH_PARENT: '1' },
    // The IPC channel carries the URL the service listens on, so that it can be started on port 0.
    stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  // Spawned with pipes, so both streams exist; the 'ipc' entry only widens their declared type.
  pipeWithPrefix(child.stdout as Readable, name, output.index, output.format);
  pipeWithPrefix(child.stderr as Readable, name, output.index, output.format);
  const exited = once(child, 'exit').then(([code]) => {
    process.removeListener('exit', killOnExit);
    return code as number | null;
  });
  const listening = new Promise<string>((resolve, reject) => {
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type === 'listening' && message.url) resolve(message.url);
    });
    void exited.then((code) => reject(new Error(`${name} exited (code ${code}) before it was listening`)));
  });
  // A service that fails to start is reported by whoever awaits it, or by the exit handling.
  listening.catch(() => {});
  return {
    name,
    child,
    listening,
    exited,
    stop: async (timeoutMs) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
