import { AppError } from '@agentplane/server-kit';
import { z } from 'zod';
import type { ConfigHolder } from '../config-source/config-holder.js';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import { deliveryAcceptance } from '../whatsapp/delivery-auth.js';
import { isWhatsApp } from '../whatsapp/whatsapp-integration.js';

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
 * (runs answer 503 until a config whose module loads is published) or an enabled WhatsApp integration
 * refuses every delivery (no appSecret, no opt-out); 503 while no config is loaded or after the agent
 * was deleted. It says how each integration takes deliveries, never with what secret.
 */
export function addHealthRoutes(api: EngineApi, holder: ConfigHolder): void {
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
      .map((integration) => {
        // Every other provider's deliveries are checked the provider's way, always.
        const deliveries = isWhatsApp(integration) ? deliveryAcceptance(integration) : 'signature_required';
        return {
          id: integration.id,
          provider: integration.provider,
          deliveries,
          ...(deliveries === 'refused'
            ? { error: 'No appSecret is set, so every webhook delivery is refused (401)' }
            : {}),
        };
      });
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
