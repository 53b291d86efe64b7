// The agent's A2A card as this engine serves it: the base URL is where clients reach the agent (a
// dedicated engine's root, or a pool's /agents/{id}, under ENGINE_PUBLIC_URL or the request's origin),
// the version is the config the request leased, and the issuers are those its authenticator accepts.
import { buildAgentCard, type TAgentCard } from '@agentplane/contracts';
import type { Request } from 'express';
import { publicOrigin } from '../http/public-origin.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';

export function agentCardFor(snapshot: AgentSnapshot, req: Request, configuredOrigin: string | undefined): TAgentCard {
  const { agent } = snapshot.config;
  return buildAgentCard({
    agent: { id: agent.id, name: agent.name, description: agent.description, framework: agent.framework },
    configVersion: snapshot.version,
    baseUrl: `${publicOrigin(req, configuredOrigin)}${req.baseUrl}`,
    issuers: snapshot.auth.issuers,
  });
}
