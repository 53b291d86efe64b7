// A real engine process for a manager suite: the engine's built dist/server.js (`pnpm --filter
// @agentplane/engine build` first), run, not imported (no app imports another), in database mode with
// the agent's own credentials and trusting the manager's tokens, as `pnpm start` sets it up.
import { fileURLToPath } from 'node:url';
import type { TEngineCredentials } from '@agentplane/contracts';
import { type ServiceProcess, startServiceProcess, waitUntil } from '@agentplane/testing';
import { expect } from '@jest/globals';
import type { SignedInUser } from './manager-test-app.js';

const ENGINE_ENTRY = fileURLToPath(new URL('../../../engine/dist/server.js', import.meta.url));
/** A cold engine process loads its config, its model and its LISTEN connection first. */
export const ENGINE_WAIT = { timeoutMs: 60_000, intervalMs: 50 };

/** Issues the agent's engine credentials as `operator` (a platform operator) and starts its engine, serving. */
export async function startAgentEngine(
  operator: SignedInUser,
  agentId: string,
  issuer: string,
): Promise<ServiceProcess> {
  const issued = await operator.agent.post(`/api/v1/agents/${agentId}/engine-credentials`);
  expect(issued.status).toBe(201);
  const credentials = issued.body as TEngineCredentials;
  const engine = await startServiceProcess(ENGINE_ENTRY, {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    AGENT_ID: credentials.agent_id,
    DATABASE_URL: credentials.database_url,
    AGENT_KEY: credentials.agent_key,
    ENGINE_MANAGER_ISSUER: issuer,
  });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, {
    what: 'the engine to serve its config',
    ...ENGINE_WAIT,
  });
  return engine;
}
