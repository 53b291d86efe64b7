// The `agent_call` claim of a token the manager mints for one agent calling another (the calling
// agent, its run, the chain so far). Only the manager's signature makes it true: the authenticator
// drops the claim from a token any other issuer signed, since a tenant's own SSO issuer could put
// anything in it.
import { ZAgentCallClaim } from '@agentplane/contracts';
import type { JWTPayload } from 'jose';

const AGENT_CALL = 'agent_call';

/** The claims without `agent_call` unless `trusted` (verified with the manager's keys). */
export function keepAgentCallOnlyIfTrusted(claims: JWTPayload, trusted: boolean): JWTPayload {
  if (trusted || !(AGENT_CALL in claims)) return claims;
  const { [AGENT_CALL]: _dropped, ...rest } = claims;
  return rest;
}

/** The calling agent and run of verified claims, when they are an agent-call token's and agree with its subject. */
export function callingRunOf(claims: JWTPayload): { agentId: string; runId: string } | undefined {
  const parsed = ZAgentCallClaim.safeParse(claims[AGENT_CALL]);
  if (!parsed.success || claims.sub !== `agent:${parsed.data.caller_agent_id}`) return undefined;
  return { agentId: parsed.data.caller_agent_id, runId: parsed.data.caller_run_id };
}
