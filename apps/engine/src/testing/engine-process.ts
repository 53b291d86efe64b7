// A real engine as a child process (the built dist/server.js), for fault tests that kill it, started
// with the test engine's base settings and nothing of the test runner's own environment.
import { fileURLToPath } from 'node:url';
import { type ServiceProcess, type ServiceProcessOptions, startServiceProcess, waitUntil } from '@agentplane/testing';
import { BASE_ENV } from './test-engine.js';

const ENTRY = fileURLToPath(new URL('../../dist/server.js', import.meta.url));

export type EngineProcess = Pick<ServiceProcess, 'url' | 'kill'>;
export type EngineProcessOptions = ServiceProcessOptions;

export function startEngineProcess(
  env: Record<string, string>,
  options: EngineProcessOptions = {},
): Promise<EngineProcess> {
  // A DATABASE_URL or NODE_OPTIONS of the test runner is not the engine's.
  return startServiceProcess(ENTRY, { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...BASE_ENV, ...env }, options);
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
