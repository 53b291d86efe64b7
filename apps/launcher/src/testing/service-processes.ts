// The manager and engines as separate processes, for the cross-service tests: each listens on port 0
// and reports its URL over IPC, and stopAll ends whatever is still running.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const entryOf = (app: string) => fileURLToPath(new URL(`../../../${app}/dist/server.js`, import.meta.url));

export class ServiceProcesses {
  private readonly children: ChildProcess[] = [];

  /** Starts `app` (manager or engine) and resolves with its URL once it listens. */
  async start(app: 'manager' | 'engine', env: NodeJS.ProcessEnv): Promise<string> {
    const child = spawn(process.execPath, [entryOf(app)], {
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.children.push(child);
    const [message] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`${app} exited (code ${code}) before listening`))),
    ])) as [{ url: string }];
    return message.url;
  }

  /** The process id of the service started last, to look at what it was given (its environment). */
  lastStartedPid(): number | undefined {
    return this.children.at(-1)?.pid;
  }

  async stopAll(): Promise<void> {
    for (const child of this.children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  }
}
