// Whose a thread is. A client names its thread (AG-UI threadId), but the stored thread and the
// LangGraph checkpoint thread are keyed by the agent, the token's issuer and its subject too: a
// subject is only unique within its issuer (an agent's SSO issuer may be under a tenant's control),
// so two agents, or two issuers with a subject in common, never share a thread.

import type { JWTPayload } from 'jose';
import { callingRunOf } from '../auth/agent-call-claims.js';

export type ThreadCaller = {
  issuer: string;
  subject: string;
  /** When another agent's run calls (an agent-call token from the manager): that agent and run, for the run's record. */
  callingRun?: CallingRun | undefined;
};

export type CallingRun = { agentId: string; runId: string };

/** The caller of an authenticated run, from its verified token claims; undefined when auth is off. */
export function callerOf(claims: unknown): ThreadCaller | undefined {
  if (claims === undefined || claims === null || typeof claims !== 'object') return undefined;
  const { iss, sub } = claims as { iss?: unknown; sub?: unknown };
  const caller = { issuer: typeof iss === 'string' ? iss : '', subject: typeof sub === 'string' ? sub : '' };
  const callingRun = callingRunOf(claims as JWTPayload);
  return callingRun === undefined ? caller : { ...caller, callingRun };
}

// The key itself is the contracts' (thread-keys.ts): the manager queues scheduled runs into these threads.
export { scopedThreadId } from '@agentplane/contracts';
