import type { TEngineIntegration } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { z } from 'zod';
import type { DeliveryState } from '../channels/channel-adapter.js';
import type { ChannelAdapters } from '../channels/channel-adapters.js';
import { providerName } from '../channels/provider-names.js';
import type { ConfigHolder } from '../config-source/config-holder.js';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';

const ZError = { error: z.string().optional(), error_id: z.string().optional() };

const ZHealth = z
  .object({
    status: z.enum(['ok', 'degraded']),
    config_version: z.number().int(),
    db: z.enum(['ok', 'unreachable', 'not_used']),
    mcp: z.array(z.object({ name: z.string(), status: z.string(), ...ZError })),
    integrations: z.array(
      z.object({
        id: z.uuid(),
        provider: z.string(),
        deliveries: z.enum(['signature_required', 'unsigned_allowed', 'refused']),
        error: z.string().optional(),
      }),
    ),
    rejected_config: z.record(z.string(), z.unknown()).optional().meta({
      description: 'The newest config version, when it was rejected, and why',
    }),
    agent_module: z
      .object({ status: z.literal('failed'), code: z.string(), error: z.string(), error_id: z.string() })
      .optional(),
  })
  .meta({ id: 'EngineHealth' });

export const HEALTH_ROUTES = {
  health: {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    summary: "The agent's health: its config, database, MCP servers and integrations",
    tag: 'health',
    access: { kind: 'public' },
    responses: { 200: { description: 'A config is served; `degraded` says what does not work', schema: ZHealth } },
    problems: { 503: 'No config is loaded yet, or the agent was deleted' },
  },
} satisfies Record<string, EngineRouteSpec>;

/**
 * 200 while a config is served, "degraded" when the database or an MCP server is unreachable, the
 * newest config was rejected (runs still work on what is in memory), the agent's module did not load
 * (runs answer 503 until a config whose module loads is published) or an enabled integration refuses
 * every delivery (a WhatsApp one without appSecret nor opt-out, or one of a provider this engine has no
 * adapter for); 503 while no config is loaded or after the agent was deleted. It says how each
 * integration takes deliveries, never with what secret.
 */
export function addHealthRoutes(api: EngineApi, holder: ConfigHolder, adapters: ChannelAdapters): void {
  const stateOf = (integration: TEngineIntegration): DeliveryState => {
    const adapter = adapters.byProvider(integration.provider);
    if (adapter === undefined) {
      const error = `This engine takes no ${providerName(integration.provider)} deliveries: every one is refused (404)`;
      return { deliveries: 'refused', error };
    }
    // Checked the provider's way, always, unless the adapter says the integration's config changes that.
    return adapter.deliveryState?.(integration as never) ?? { deliveries: 'signature_required' };
  };
  api.add(HEALTH_ROUTES.health, (_input, _req, res) => {
    const snapshot = holder.current();
    if (snapshot === undefined) throw new AppError('service_unavailable', holder.unavailableReason());
    const mcp = snapshot.toolset.statuses().map(({ name, status, error, errorId }) => ({
      name,
      status,
      ...(error === undefined ? {} : { error }),
      ...(errorId === undefined ? {} : { error_id: errorId }),
    }));
    const integrations = snapshot.config.integrations
      .filter((integration) => integration.enabled)
      .map((integration) => ({ id: integration.id, provider: integration.provider, ...stateOf(integration) }));
    const rejection = holder.rejection();
    const { loadFailure } = snapshot;
    const degraded =
      holder.db() === 'unreachable' ||
      rejection !== undefined ||
      loadFailure !== undefined ||
      mcp.some((server) => server.status !== 'connected') ||
      integrations.some((integration) => integration.deliveries === 'refused');
    res.json({
      status: degraded ? 'degraded' : 'ok',
      config_version: snapshot.version,
      db: holder.db(),
      mcp,
      integrations,
      ...(rejection === undefined ? {} : { rejected_config: rejection }),
      ...(loadFailure === undefined
        ? {}
        : {
            agent_module: {
              status: 'failed',
              code: loadFailure.code,
              error: "The agent's module could not be loaded",
              error_id: loadFailure.errorId,
            },
          }),
    });
  });
}
