// The manager and engines as separate processes, for the cross-service tests: each listens on port 0
// and reports its URL over IPC, and stopAll ends whatever is still running.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const entryOf = (app: string) => fileURLToPath(new URL(`../../../${app}/dist/server.js`, import.meta.url));

export type StartServiceOptions = {
  /** Keep what the service writes to stderr (see stderrOf) instead of passing it through. */
  captureStderr?: boolean;
};

type Service = { child: ChildProcess; url?: string; stderr: string };

export class ServiceProcesses {
  private readonly services: Service[] = [];

  /** Starts `app` (manager or engine) and resolves with its URL once it listens. */
  async start(app: 'manager' | 'engine', env: NodeJS.ProcessEnv, options: StartServiceOptions = {}): Promise<string> {
    const child = spawn(process.execPath, [entryOf(app)], {
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', ...env },
      stdio: ['ignore', 'ignore', options.captureStderr ? 'pipe' : 'inherit', 'ipc'],
    });
    const service: Service = { child, stderr: '' };
    child.stderr?.on('data', (chunk) => (service.stderr += chunk));
    this.services.push(service);
    const [message] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`${app} exited (code ${code}) before listening`))),
    ])) as [{ url: string }];
    service.url = message.url;
    return message.url;
  }

  /** The process id of the service started last, to look at what it was given (its environment). */
  lastStartedPid(): number | undefined {
    return this.services.at(-1)?.child.pid;
  }

  /** What the service at `url`, started with captureStderr, has written to stderr so far. */
  stderrOf(url: string): string {
    return this.serviceAt(url).stderr;
  }

  /** Sends `signal` to the service at `url` and resolves once it has exited and its output is all read. */
  async kill(url: string, signal: NodeJS.Signals): Promise<void> {
    const { child } = this.serviceAt(url);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const closed = once(child, 'close');
    child.kill(signal);
    await closed;
  }

  async stopAll(): Promise<void> {
    for (const { child } of this.services.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  }

  private serviceAt(url: string): Service {
    const service = this.services.find((candidate) => candidate.url === url);
    if (!service) throw new Error(`no service was started at ${url}`);
    return service;
  }
}
