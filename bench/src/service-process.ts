import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export type Service = { url: string; child: ChildProcess; stop: () => Promise<void> };

/** Starts a server entry point as its own process (so the load generator does not share its CPU time slice) and waits for it. */
export async function startService(
  entry: string,
  env: NodeJS.ProcessEnv,
  readyPath: string,
  port: number,
): Promise<Service> {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    try {
      if ((await fetch(url + readyPath)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${entry} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
