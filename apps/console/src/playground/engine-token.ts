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

async function requestEngine(engineUrl: string, path: string, token: string): Promise<Response> {
  const response = await fetchFromEngine(`${engineUrl.replace(/\/$/, '')}${path}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw await engineProblem(response);
  return response;
}

/** A GET of the engine's own API with the token: its thread and run endpoints. */
export async function getFromEngine<T>(engineUrl: string, path: string, token: string): Promise<T> {
  return (await (await requestEngine(engineUrl, path, token)).json()) as T;
}

/** A page of one of the engine's lists: its items, the caller's total, and the cursor of the next page. */
export async function getPageFromEngine<T>(
  engineUrl: string,
  path: string,
  token: string,
): Promise<{ items: T[]; total: number; next: string | undefined }> {
  const response = await requestEngine(engineUrl, path, token);
  return {
    items: (await response.json()) as T[],
    total: Number(response.headers.get('X-Total-Count') ?? 0),
    next: response.headers.get('X-Next-Cursor') ?? undefined,
  };
}
