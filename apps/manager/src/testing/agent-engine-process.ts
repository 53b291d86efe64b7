// A real engine process for a manager suite: the engine's built dist/server.js (`pnpm --filter
// @agentplane/engine build` first), run rather than imported (no app imports another), in database mode
// with one agent's credentials and trusting the manager's tokens, as `pnpm start` sets it up.
import { fileURLToPath } from 'node:url';
import type { TEngineCredentials } from '@agentplane/contracts';
import { type ServiceProcess, startServiceProcess, waitUntil } from '@agentplane/testing';
import { expect } from '@jest/globals';
import type { SignedInUser } from './manager-test-app.js';

const ENGINE_ENTRY = fileURLToPath(new URL('../../../engine/dist/server.js', import.meta.url));
/** A cold engine process loads its config, its model and its LISTEN connection first. */
export const ENGINE_WAIT = { timeoutMs: 60_000, intervalMs: 50 };

/** The agent's engine credentials, issued by `operator` (a platform operator). */
export async function issueEngineCredentials(operator: SignedInUser, agentId: string): Promise<TEngineCredentials> {
  const issued = await operator.agent.post(`/api/v1/agents/${agentId}/engine-credentials`);
  expect(issued.status).toBe(201);
  return issued.body as TEngineCredentials;
}

/** Starts the agent's engine and waits until it serves its config; `env` adds to (or overrides) its variables. */
export async function startAgentEngine(
  credentials: TEngineCredentials,
  issuer: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const engine = await startServiceProcess(ENGINE_ENTRY, {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    AGENT_ID: credentials.agent_id,
    DATABASE_URL: credentials.database_url,
    AGENT_KEY: credentials.agent_key,
    ENGINE_MANAGER_ISSUER: issuer,
    ...env,
  });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, {
    what: 'the engine to serve its config',
    ...ENGINE_WAIT,
  });
  return engine;
}
