// Runs the real `pnpm start` entry point as a child process, as a newcomer would.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@agentplane/db/embedded';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { afterEach, describe, expect, it } from '@jest/globals';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

type Launched = { child: ChildProcess; output: () => string; exit: Promise<number | null> };

function launch(env: NodeJS.ProcessEnv): Launched {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function waitForStatus(url: string, status: number, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status === status) return;
      last = String(response.status);
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer ${status} in time (last: ${last})`);
}

async function expectClosed(url: string): Promise<void> {
  await expect(fetch(url)).rejects.toThrow();
}

let running: Launched | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exit;
  }
  running = undefined;
  await database?.drop();
  database = undefined;
});

async function startAndCheck(env: NodeJS.ProcessEnv) {
  const [managerPort, enginePort] = [await findFreePort(), await findFreePort()];
  running = launch({ ...env, MANAGER_PORT: String(managerPort), ENGINE_PORT: String(enginePort) });
  const manager = `http://127.0.0.1:${managerPort}`;
  const engine = `http://127.0.0.1:${enginePort}`;
  await waitForStatus(`${manager}/api/v1/healthz`, 200);
  await waitForStatus(`${manager}/api/v1/readyz`, 200);
  await waitForStatus(`${engine}/health`, 503);
  return { manager, engine, launched: running };
}

describe('pnpm start', () => {
  it('migrates DATABASE_URL, serves the manager and the engine, and stops cleanly on SIGTERM', async () => {
    database = await createTestDatabase({ migrated: false });
    const { manager, engine, launched } = await startAndCheck({ DATABASE_URL: database.url });
    expect(launched.output()).toContain('[migrate] applied');

    launched.child.kill('SIGTERM');
    expect(await launched.exit).toBe(0);
    expect(launched.output()).toContain('[launcher] stopped');
    await expectClosed(`${manager}/api/v1/healthz`);
    await expectClosed(`${engine}/health`);
  });

  it('brings up an embedded PostgreSQL when DATABASE_URL is unset, and stops it on SIGINT', async () => {
    const dataDir = path.join(tmpdir(), `agentplane-launcher-pg-${process.pid}`);
    const postgresPort = await findFreePort();
    try {
      const env = {
        DATABASE_URL: '',
        EMBEDDED_POSTGRES_DIR: dataDir,
        EMBEDDED_POSTGRES_PORT: String(postgresPort),
      };
      const { launched } = await startAndCheck(env);
      expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
      launched.child.kill('SIGINT');
      expect(await launched.exit).toBe(0);
      expect(launched.output()).toContain('[launcher] stopped');
      await expect(
        fetch(`http://127.0.0.1:${postgresPort}`).catch((error: Error) => error.cause),
      ).resolves.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('exits non-zero with the reason when the database cannot be reached', async () => {
    running = launch({ DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(await running.exit).toBe(1);
    expect(running.output()).toMatch(/\[migrate\] .*ECONNREFUSED/);
  });
});
