// The publish protocol, in one place: inside the transaction of any write that can change what an
// agent runs, recompute the agent's engine_config, and where it changed, store it with version + 1 and
// queue a NOTIFY. PostgreSQL delivers the NOTIFY at commit, and not at all on rollback. The secrets in
// a stored config are sealed with the key of the engine that serves the agent, never SECRETS_KEY: its
// pool's key for a pooled agent, the agent's own for a dedicated one.
import { isDeepStrictEqual } from 'node:util';
import {
  ENGINE_CONFIG_MAX_BYTES,
  mapAgentConfigSecrets,
  mapEngineConfigSecrets,
  type TAgentFramework,
  type TEngineConfig,
} from '@agentplane/contracts';
import { type AgentKeyring, isSealed, isSealedWithOtherKey, type SecretBox, type Tx } from '@agentplane/db';
import { AppError, TRACER_NAME } from '@agentplane/server-kit';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { engineBudgetsOf } from '../budgets/engine-budgets.js';
import { engineGuardrailsOf } from '../guardrails/engine-guardrails.js';
import type { PublishMetrics } from '../metrics/manager-metrics.js';
import { INTEGRATIONS, MCP_SERVERS, OBSERVABILITY_CONFIGS, SSO_CONFIGS } from '../resources/resource-kinds.js';
import type { ModelPrices } from '../usage/model-prices.js';
import { recordAgentVersions, type VersionChange } from '../versions/record-agent-versions.js';
import { snapshotOf } from '../versions/version-snapshot.js';
import { agentCallsFor, readCallersOf } from './agent-calls.js';
import { deriveEngineConfig } from './derive-engine-config.js';
import { readAgentsWithResources } from './read-agents-with-resources.js';

export type PublishedConfig = { config: TEngineConfig; version: number };

/**
 * Republishes the engine configs of `agentIds` from what the transaction sees now. Configs whose
 * content did not change keep their version, so engines do not reload for nothing.
 */
export async function publishEngineConfigs(
  tx: Tx,
  options: {
    agentIds: string[];
    /** Opens the resources (sealed with the platform key). */
    box: SecretBox;
    /** Seals each agent's config with its placement's key (its pool's, or its own). */
    agentKeys: AgentKeyring;
    /** Prices the agent's model for its engine's budgets in USD. */
    prices: ModelPrices;
    /** The operator's pools by name (ENGINE_POOLS): where a pooled agent that others call is served. */
    poolUrls: ReadonlyMap<string, string>;
    /**
     * A config that would be larger (stored JSON) refuses the whole write, which rolls back. Only the
     * start-up upgrade lifts it, to re-seal what is already published whatever its size.
     */
    maxConfigBytes?: number;
    /** Times the publish and counts its agents, when the manager serves metrics. */
    metrics?: PublishMetrics | undefined;
    /**
     * Writes the configs of `agentIds` (version + 1, NOTIFY) even when their content is unchanged: after a
     * move, the engines of the old placement and of the new one both read the row again.
     */
    republishUnchanged?: boolean;
    /** Who made the change, why and how: kept with each version the publish records (versions/). */
    change: VersionChange;
    /** AGENT_VERSION_RETENTION: how many of an agent's newest versions are kept. */
    versionRetention: number;
  },
): Promise<Map<string, PublishedConfig>> {
  const { metrics } = options;
  // A no-op span unless the operator turned tracing on (OTEL_EXPORTER_OTLP_*): then a child of the request's.
  return trace.getTracer(TRACER_NAME).startActiveSpan('publish engine_configs', async (span) => {
    span.setAttribute('agentplane.publish.agents', options.agentIds.length);
    const timed = metrics?.duration.startTimer();
    try {
      return await publish(tx, options);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
      timed?.();
      metrics?.fanOut.observe(options.agentIds.length);
    }
  });
}

async function publish(
  tx: Tx,
  options: Parameters<typeof publishEngineConfigs>[1],
): Promise<Map<string, PublishedConfig>> {
  const published = new Map<string, PublishedConfig>();
  if (options.agentIds.length === 0) return published;
  // The agents that call these ones name where they are served, and what they are: theirs change too.
  const callers = await readCallersOf(tx, options.agentIds);
  const agents = await readAgentsWithResources(tx, [...new Set([...options.agentIds, ...callers])]);
  const forced = new Set(options.republishUnchanged ? options.agentIds : []);

  const changed: { agent: (typeof agents)[number]; sealed: string; config: TEngineConfig }[] = [];
  for (const agent of agents) {
    const current = agent.engineConfig;
    const agentBox = options.agentKeys.boxForPlacement({ agentId: agent.id, pool: agent.deploymentPool });
    const config = deriveEngineConfig({
      agent: {
        ...agent,
        framework: agent.framework as TAgentFramework,
        config: mapAgentConfigSecrets(agent.framework, agent.config, options.box.open),
      },
      integrations: agent.integrations.map((link) => ({
        id: link.integrationId,
        integration: INTEGRATIONS.fromRow(link.integration, options.box),
      })),
      mcpServers: agent.mcpServers.map((link) => MCP_SERVERS.fromRow(link.mcpServer, options.box)),
      sso: agent.sso ? SSO_CONFIGS.fromRow(agent.sso, options.box) : null,
      observability: agent.observability ? OBSERVABILITY_CONFIGS.fromRow(agent.observability, options.box) : null,
      budgets: engineBudgetsOf(agent, agent.workspaceBudget, options.prices),
      agentCalls: await agentCallsFor(tx, agent, { agentBox, poolUrls: options.poolUrls }),
      guardrails: engineGuardrailsOf(
        agent.framework as TAgentFramework,
        agent.guardrails.map((link) => link.guardrail),
        agent.defaultGuardrails,
      ),
    });
    if (
      current &&
      !forced.has(agent.id) &&
      !hasSecretsToSealAgain(current.config as TEngineConfig, agentBox) &&
      isDeepStrictEqual(mapEngineConfigSecrets(current.config as TEngineConfig, agentBox.open), config)
    ) {
      published.set(agent.id, { config, version: Number(current.version) });
      continue;
    }
    const sealed = JSON.stringify(mapEngineConfigSecrets(config, agentBox.seal));
    refuseOversizedConfig(agent.id, sealed, options.maxConfigBytes ?? ENGINE_CONFIG_MAX_BYTES);
    changed.push({ agent, sealed, config });
  }
  if (changed.length === 0) return published;

  // One statement for all of them, in id order, so concurrent publishes lock rows in the same order.
  const versions = await tx.$queryRaw<{ agent_id: string; version: bigint }[]>`
    INSERT INTO engine_configs (agent_id, workspace_id, version, config, updated_at)
    SELECT agent_id, workspace_id, 1, config, now()
    FROM unnest(${changed.map((c) => c.agent.id)}::uuid[], ${changed.map((c) => c.agent.workspaceId)}::uuid[],
                ${changed.map((c) => c.sealed)}::jsonb[]) AS t(agent_id, workspace_id, config)
    ORDER BY agent_id
    ON CONFLICT (agent_id) DO UPDATE
      SET version = engine_configs.version + 1, config = EXCLUDED.config, updated_at = now()
    RETURNING agent_id, version`;
  const versionOf = new Map(versions.map((row) => [row.agent_id, Number(row.version)]));
  for (const change of changed) {
    published.set(change.agent.id, { config: change.config, version: versionOf.get(change.agent.id) ?? 0 });
  }
  const asked = new Set(options.agentIds);
  await recordAgentVersions(
    tx,
    changed.map(({ agent, config }) => ({
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      version: versionOf.get(agent.id) ?? 0,
      snapshot: snapshotOf(agent, config, options.box),
      // An agent republished because one it calls changed (its name, where it is served).
      cause: asked.has(agent.id) ? options.change.cause : 'callee',
    })),
    options.change,
    options.versionRetention,
  );
  await notifyEngines(
    tx,
    changed.map((change) => change.agent.id),
  );
  return published;
}

function refuseOversizedConfig(agentId: string, sealed: string, maxBytes: number): void {
  const bytes = Buffer.byteLength(sealed, 'utf8');
  if (bytes <= maxBytes) return;
  throw new AppError('validation_failed', 'The change would make an engine config larger than the platform allows.', {
    errors: [
      {
        path: 'engine_config',
        message: `The engine config of agent ${agentId} would be ${bytes} bytes; at most ${maxBytes} are allowed`,
      },
    ],
  });
}

/**
 * A config holding a value sealed with another key (the platform key before agent keys existed, a
 * rotated one, or the key of the agent's previous placement) is sealed again even when its content is
 * unchanged: its engine can open only its own key's.
 * So is one holding a secret in plaintext: a URL's query, published before queries were secrets.
 */
export function hasSecretsToSealAgain(config: TEngineConfig, agentBox: SecretBox): boolean {
  let found = false;
  mapEngineConfigSecrets(config, (value) => {
    found ||= !isSealed(value) || isSealedWithOtherKey(value, agentBox);
    return value;
  });
  return found;
}

/**
 * Each agent's engines LISTEN on its own config channel (engine_channels) and read their row again at
 * once; polling stays the guarantee. The payload names nothing: the channel says whose config changed.
 */
export async function notifyEngines(tx: Tx, agentIds: string[]): Promise<void> {
  if (agentIds.length === 0) return;
  await tx.$executeRaw`
    SELECT pg_notify(config_channel, 'config') FROM engine_channels WHERE agent_id = ANY(${agentIds}::uuid[])`;
}
