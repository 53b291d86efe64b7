// The credential an agent's engine asks for agent-call tokens with: `<agent id>.<secret>`, of which the
// manager stores only the SHA-256 (agents.call_credential_hash). 32 random bytes need no slow hash.
import { createHash, timingSafeEqual } from 'node:crypto';
import { AGENT_CALL_CREDENTIAL } from '@agentplane/contracts';

export function hashCallCredential(credential: string): string {
  return createHash('sha256').update(credential, 'utf8').digest('hex');
}

/** The agent a well-formed credential speaks for; undefined for anything else. */
export function credentialAgentId(credential: string): string | undefined {
  return AGENT_CALL_CREDENTIAL.exec(credential)?.[1];
}

/** Compares in constant time; a missing hash (an agent that calls no agent) matches nothing. */
export function credentialMatches(credential: string, storedHash: string | null): boolean {
  if (storedHash === null) return false;
  const given = Buffer.from(hashCallCredential(credential), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
