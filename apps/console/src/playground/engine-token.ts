// The bearer token the playground sends to the agent's engine: minted by the manager for the signed-in
// user (POST /agents/{id}/token), and minted again shortly before it expires.
import { mintAgentToken } from '../agents/agent-api';
import { engineProblem, fetchFromEngine } from '../api/engine-fetch';

const RENEW_BEFORE_MS = 30_000;

export function engineTokenSource(agentId: string): () => Promise<string> {
  let current: { token: string; expiresAt: number } | undefined;
  return async () => {
    if (!current || Date.now() > current.expiresAt - RENEW_BEFORE_MS) {
      const minted = await mintAgentToken(agentId);
      current = { token: minted.access_token, expiresAt: Date.now() + minted.expires_in * 1000 };
    }
    return current.token;
  };
}

/** A GET of the engine's own API with the token: its thread and run endpoints. */
export async function getFromEngine<T>(engineUrl: string, path: string, token: string): Promise<T> {
  const response = await fetchFromEngine(`${engineUrl.replace(/\/$/, '')}${path}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw await engineProblem(response);
  return (await response.json()) as T;
}
