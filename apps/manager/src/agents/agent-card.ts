// GET /api/v1/agents/{id}/card: the agent's A2A card, built from what the manager stores (its
// engine_url, its published config's version and SSO issuer, the manager's own issuer) with the same
// buildAgentCard as its engine, without calling the engine. An engine that also accepts its operator's
// ENGINE_OIDC_* issuer names it in the card it serves itself; the manager cannot know it.
import { buildAgentCard, type TAgentCard } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { engineUrlOf } from '../engine-pools/deployments.js';
import { storedConfigOf, WITH_LINKS } from './agent-response.js';
import { type AgentContext, notFound } from './agent-service.js';

export async function getAgentCard(
  ctx: Pick<AgentContext, 'db' | 'workspaceId' | 'agentKeys' | 'enginePools'>,
  managerIssuer: string,
  id: string,
): Promise<TAgentCard> {
  const agent = await ctx.db.agent.findFirst({ where: { id, workspaceId: ctx.workspaceId }, include: WITH_LINKS });
  if (!agent) throw notFound();
  const baseUrl = engineUrlOf(agent, ctx.enginePools.urls);
  if (baseUrl === null) {
    throw new AppError('conflict', 'The agent has no engine_url, so its card would name no endpoint.', {
      type: 'no-engine-url',
    });
  }
  const { config, version } = storedConfigOf(agent, ctx.agentKeys);
  // The engine checks the manager's tokens first, then the agent's SSO issuer (auth/authenticator.ts).
  const issuers = [managerIssuer, ...(config.sso?.enabled ? [config.sso.issuer] : [])];
  return buildAgentCard({
    agent: { id: agent.id, name: agent.name, description: agent.description, framework: agent.framework },
    configVersion: version,
    baseUrl,
    issuers: [...new Set(issuers)],
  });
}
