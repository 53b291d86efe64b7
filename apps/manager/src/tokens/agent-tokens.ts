import { randomUUID } from 'node:crypto';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { SignJWT } from 'jose';
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys.js';

export type AgentToken = { access_token: string; token_type: 'Bearer'; expires_in: number };

/**
 * A short-lived token for one agent's engine (aud = the agent id), for a signed-in user: this is how a
 * frontend that signed in to the manager streams from an engine.
 */
export async function mintAgentToken(options: {
  db: Db;
  keys: SigningKeys;
  issuer: string;
  ttlSeconds: number;
  workspaceId: string;
  agentId: string;
  userId: string;
}): Promise<AgentToken> {
  const [agent, user] = await Promise.all([
    options.db.agent.findFirst({
      where: { id: options.agentId, workspaceId: options.workspaceId },
      select: { id: true },
    }),
    options.db.user.findUnique({ where: { id: options.userId }, select: { email: true } }),
  ]);
  if (!agent) throw new AppError('not_found', 'No such agent.');
  const key = await options.keys.current();
  const token = await new SignJWT({ email: user?.email, workspace_id: options.workspaceId, scope: 'agent:run' })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(options.issuer)
    .setSubject(options.userId)
    .setAudience(options.agentId)
    .setIssuedAt()
    .setExpirationTime(`${options.ttlSeconds}s`)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { access_token: token, token_type: 'Bearer', expires_in: options.ttlSeconds };
}
