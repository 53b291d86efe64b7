import type { TSsoConfig } from '@agentplane/contracts';

/**
 * What a manager-minted agent token must satisfy: the manager's issuer, this agent as audience, and
 * the manager's signing algorithm. Its keys come from the manager's discovery document and JWKS.
 */
export function managerTokenSettings(issuer: string, agentId: string): TSsoConfig {
  return { enabled: true, issuer, audience: agentId, algorithms: ['ES256'] };
}
