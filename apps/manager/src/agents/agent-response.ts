// How agents read back: the rows an agent response is made of, and the response, with its stored
// engine config opened with its placement's key, a pooled agent's engine_url derived, and the endpoints
// under it.
import {
  agentEndpointsOf,
  mapAgentConfigSecrets,
  mapEngineConfigSecrets,
  type TAgent,
  type TAgentListItem,
  type TAgentResources,
  type TEngineConfig,
} from '@agentplane/contracts';
import type { AgentKeyring, Prisma, SecretBox } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { deploymentOf, engineUrlOf } from '../engine-pools/deployments.js';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';
import type { PublishedConfig } from '../publishing/publish-engine-configs.js';
import { type SecretsView, showSecret } from '../secrets/secrets-view.js';

export const WITH_LINKS = {
  integrations: {
    select: { integrationId: true },
    orderBy: [{ integration: { createdAt: 'asc' } }, { integrationId: 'asc' }],
  },
  mcpServers: { select: { mcpServerId: true }, orderBy: [{ mcpServer: { createdAt: 'asc' } }, { mcpServerId: 'asc' }] },
  guardrails: { select: { guardrailId: true }, orderBy: [{ guardrail: { createdAt: 'asc' } }, { guardrailId: 'asc' }] },
  engineConfig: { select: { config: true, version: true } },
} satisfies Prisma.AgentInclude;

// What a list reads by default: engine configs can weigh up to ENGINE_CONFIG_MAX_BYTES each.
export const WITH_LINKS_AND_VERSION = {
  ...WITH_LINKS,
  engineConfig: { select: { version: true } },
} satisfies Prisma.AgentInclude;

type AgentWithLinks = {
  id: string;
  name: string;
  description: string | null;
  framework: string;
  config: unknown;
  ssoId: string | null;
  engineUrl: string | null;
  deploymentMode: string;
  deploymentPool: string | null;
  observabilityId: string | null;
  createdAt: Date;
  updatedAt: Date;
  integrations: { integrationId: string }[];
  mcpServers: { mcpServerId: string }[];
  guardrails: { guardrailId: string }[];
  engineConfig: { config?: unknown; version: bigint } | null;
};

type PublishedVersion = { version: number; config?: TEngineConfig };

type AgentLinks = Pick<AgentWithLinks, 'integrations' | 'mcpServers' | 'guardrails' | 'ssoId' | 'observabilityId'>;

/** The agent's `resources`, as its responses and its versions' specs show them. */
export function resourcesOf(agent: AgentLinks): TAgentResources {
  return {
    integration_ids: agent.integrations.map((link) => link.integrationId),
    mcp_server_ids: agent.mcpServers.map((link) => link.mcpServerId),
    guardrail_ids: agent.guardrails.map((link) => link.guardrailId),
    sso_id: agent.ssoId,
    observability_id: agent.observabilityId,
  };
}

/** What a response depends on besides the rows: how secrets are shown, and where pools answer. */
export type AgentResponseContext = {
  /** Opens the agent's own config (sealed with the platform key). */
  box: SecretBox;
  secrets: SecretsView;
  enginePools: EnginePoolSettings;
};

export function toAgentResponse(agent: AgentWithLinks, published: PublishedConfig, ctx: AgentResponseContext): TAgent;
export function toAgentResponse(
  agent: AgentWithLinks,
  published: PublishedVersion,
  ctx: AgentResponseContext,
): TAgentListItem;
export function toAgentResponse(
  agent: AgentWithLinks,
  published: PublishedVersion,
  ctx: AgentResponseContext,
): TAgentListItem {
  const show = showSecret(ctx.secrets);
  const engineUrl = engineUrlOf(agent, ctx.enginePools.urls);
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    framework: agent.framework,
    agent: mapAgentConfigSecrets(agent.framework, agent.config, (value, path) => show(ctx.box.open(value), path)),
    resources: resourcesOf(agent),
    engine_url: engineUrl,
    endpoints: engineUrl === null ? null : agentEndpointsOf(engineUrl),
    deployment: deploymentOf(agent),
    ...(published.config === undefined ? {} : { engine_config: mapEngineConfigSecrets(published.config, show) }),
    engine_config_version: published.version,
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  } as TAgentListItem;
}

export function publishedOf(agent: AgentWithLinks): { config?: unknown; version: bigint } {
  if (!agent.engineConfig) throw new AppError('internal', `Agent ${agent.id} has no published engine config.`);
  return agent.engineConfig;
}

/** The stored config with its secrets opened (sealed with its pool's key, or the agent's own for a dedicated agent). */
export function openConfig(
  placement: { agentId: string; pool: string | null },
  config: unknown,
  agentKeys: AgentKeyring,
): TEngineConfig {
  return mapEngineConfigSecrets(config as TEngineConfig, agentKeys.boxForPlacement(placement).open);
}

export function storedConfigOf(agent: AgentWithLinks, agentKeys: AgentKeyring): PublishedConfig {
  const published = publishedOf(agent);
  const placement = { agentId: agent.id, pool: agent.deploymentPool };
  return { config: openConfig(placement, published.config, agentKeys), version: Number(published.version) };
}
