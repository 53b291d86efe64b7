// The agent's A2A card as this engine serves it: the base URL is where the request came in (a
// dedicated engine's root, or a pool's /agents/{id}), the version is the config the request leased,
// and the issuers are those its authenticator accepts. The engine config carries no description, so
// the card describes the agent by its name (the manager's card has the stored description).
import { buildAgentCard, type TAgentCard } from '@agentplane/contracts';
import type { Request } from 'express';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';

/** The agent's base URL as the client reached it: the request's scheme, Host and the agent's base path. */
function agentBaseUrl(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
}

export function agentCardFor(snapshot: AgentSnapshot, req: Request): TAgentCard {
  const { agent } = snapshot.config;
  return buildAgentCard({
    agent: { id: agent.id, name: agent.name, framework: agent.framework },
    configVersion: snapshot.version,
    baseUrl: agentBaseUrl(req),
    issuers: snapshot.auth.issuers,
  });
}
