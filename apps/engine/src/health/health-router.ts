import { AppError } from '@agentplane/server-kit';
import { Router } from 'express';
import type { ConfigHolder } from '../config-source/config-holder.js';
import { deliveryAcceptance } from '../whatsapp/delivery-auth.js';

/**
 * 200 while a config is served, "degraded" when the database or an MCP server is unreachable, the
 * newest config was rejected (runs still work on what is in memory), the agent's module did not load
 * (runs answer 503 until a config whose module loads is published) or an enabled WhatsApp integration
 * refuses every delivery (no appSecret, no opt-out); 503 while no config is loaded or after the agent
 * was deleted. It says how each integration takes deliveries, never with what secret.
 */
export function healthRouter(holder: ConfigHolder): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
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
        const deliveries = deliveryAcceptance(integration);
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
  return router;
}
