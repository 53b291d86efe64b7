// Starts a real engine in this process on a loopback port, in file or database mode.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@agentplane/server-kit';
import { loadEngineEnv } from '../env.js';
import { type RunningEngine, startEngine } from '../start-engine.js';

export type TestEngineOptions = {
  env?: Record<string, string>;
  keepaliveMs?: number;
  logLevel?: string;
};

const BASE_ENV = { PORT: '0', HOST: '127.0.0.1', ENGINE_AUTH: 'disabled' };

export function startTestEngine(env: Record<string, string>, options: TestEngineOptions = {}): Promise<RunningEngine> {
  const logger = createLogger({
    name: 'engine-test',
    level: options.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  return startEngine(loadEngineEnv({ ...BASE_ENV, ...env, ...options.env }), {
    logger,
    ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }),
  });
}

export async function writeConfigFile(config: unknown, extension: 'json' | 'yaml' = 'json'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-config-'));
  const file = path.join(dir, `agent.${extension}`);
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** An engine serving `config` from a file (no database), with auth disabled unless options.env says otherwise. */
export async function startFileEngine(config: unknown, options: TestEngineOptions = {}): Promise<RunningEngine> {
  return startTestEngine({ ENGINE_CONFIG_FILE: await writeConfigFile(config) }, options);
}
