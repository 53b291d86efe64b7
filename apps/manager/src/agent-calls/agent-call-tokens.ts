// The token a calling agent's engine gets for one call to another agent of its workspace: signed with
// the manager's keys like any agent token, for the callee (aud) on behalf of the calling agent (sub
// `agent:<id>`), short-lived, and carrying the chain of calls so far. Never a user's token: nothing of
// the person who started the chain reaches the callee.
import { randomUUID } from 'node:crypto';
import type { TAgentCallClaim, TAgentCallTokenRequest } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { SignJWT } from 'jose';
import type { AgentToken } from '../tokens/agent-tokens.js';
import { SIGNING_ALGORITHM, type SigningKeys } from '../tokens/signing-keys.js';
import { checkAgentCallChain } from './agent-call-chain.js';
import { credentialAgentId, credentialMatches } from './call-credentials.js';

/** Long enough to open an MCP session and call once; a chain asks again for every call. */
export const AGENT_CALL_TOKEN_TTL_SECONDS = 120;

export type AgentCallTokenDependencies = { db: Db; keys: SigningKeys; issuer: string; maxDepth: number };

const BEARER = /^Bearer +(\S+) *$/i;

function badCredential(): AppError {
  return new AppError('unauthorized', 'An agent-call credential is required, and this one is not valid.', {
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  });
}

/** The calling agent, from the credential its engine was published (publishing/agent-calls.ts). */
async function authenticateCaller(db: Db, authorization: string | undefined) {
  const credential = BEARER.exec(authorization ?? '')?.[1] ?? '';
  const agentId = credentialAgentId(credential);
  if (agentId === undefined) throw badCredential();
  const agent = await db.agent.findUnique({
    where: { id: agentId },
    select: { id: true, workspaceId: true, callCredentialHash: true },
  });
  if (agent === null || !credentialMatches(credential, agent.callCredentialHash)) throw badCredential();
  return agent;
}

/** True when one of the caller's MCP servers calls the callee; both are then of one workspace. */
async function hasCallEdge(db: Db, caller: { id: string; workspaceId: string }, calleeId: string): Promise<boolean> {
  const found = await db.agentMcpServer.count({
    where: { agentId: caller.id, mcpServer: { agentId: calleeId, workspaceId: caller.workspaceId } },
  });
  return found > 0;
}

export async function mintAgentCallToken(
  deps: AgentCallTokenDependencies,
  authorization: string | undefined,
  request: TAgentCallTokenRequest,
): Promise<AgentToken> {
  const caller = await authenticateCaller(deps.db, authorization);
  const calleeId = request.callee_agent_id;
  if (!(await hasCallEdge(deps.db, caller, calleeId))) {
    throw new AppError('forbidden', `This agent has no MCP server that calls agent ${calleeId}.`, {
      type: 'no-agent-call',
    });
  }
  const chain = await checkAgentCallChain(deps.db, {
    callerId: caller.id,
    callerRunId: request.caller_run_id,
    calleeId,
    maxDepth: deps.maxDepth,
  });
  const claim: TAgentCallClaim = { caller_agent_id: caller.id, caller_run_id: request.caller_run_id, chain };
  const key = await deps.keys.current();
  const token = await new SignJWT({ workspace_id: caller.workspaceId, scope: 'agent:run', agent_call: claim })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(deps.issuer)
    .setSubject(`agent:${caller.id}`)
    .setAudience(calleeId)
    .setIssuedAt()
    .setExpirationTime(`${AGENT_CALL_TOKEN_TTL_SECONDS}s`)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { access_token: token, token_type: 'Bearer', expires_in: AGENT_CALL_TOKEN_TTL_SECONDS };
}
