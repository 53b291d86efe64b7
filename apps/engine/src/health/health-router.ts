import { AppError } from '@agentplane/server-kit';
import { Router } from 'express';
import type { ConfigHolder } from '../config-source/config-holder.js';

/**
 * 200 while a config is served, "degraded" when the database or an MCP server is unreachable, the
 * newest config was rejected (runs still work on what is in memory) or the agent's module did not load
 * (runs answer 503 until a config whose module loads is published); 503 while no config is loaded or
 * after the agent was deleted.
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
    const rejection = holder.rejection();
    const { loadFailure } = snapshot;
    const degraded =
      holder.db() === 'unreachable' ||
      rejection !== undefined ||
      loadFailure !== undefined ||
      mcp.some((server) => server.status !== 'connected');
    res.json({
      status: degraded ? 'degraded' : 'ok',
      config_version: snapshot.version,
      db: holder.db(),
      mcp,
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
