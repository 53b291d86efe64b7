import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { pipeWithPrefix } from './prefixed-output.js';

export type ServiceProcess = {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code once the process has ended, however it ended. */
  exited: Promise<number | null>;
  stop: (timeoutMs: number) => Promise<void>;
};

export function startService(name: string, entry: string, env: NodeJS.ProcessEnv, index: number): ServiceProcess {
  // Its own process group: a Ctrl-C at the terminal reaches only the launcher, which stops the
  // services in order; the exit hook below still takes them down if the launcher dies first.
  const child = spawn(process.execPath, [entry], {
    // The stdin pipe closes if the launcher dies without stopping the service (SIGKILL): the service then exits.
    env: { ...env, AGENTPLANE_EXIT_WITH_PARENT: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  pipeWithPrefix(child.stdout, name, index);
  pipeWithPrefix(child.stderr, name, index);
  const exited = once(child, 'exit').then(([code]) => {
    process.removeListener('exit', killOnExit);
    return code as number | null;
  });
  return {
    name,
    child,
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
