import { JSON_MAX_DEPTH, ZUuid } from '@agentplane/contracts';
import {
  AppError,
  corsForAllowedOrigins,
  type Logger,
  measureHttpRequests,
  notFoundHandler,
  problemHandler,
  refuseUnstorableInput,
  requestLogger,
} from '@agentplane/server-kit';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { ServedAgent } from './hosting/served-agent.js';
import { MCP_PATH, PROTECTED_RESOURCE_PATH, sendResourceMetadata } from './mcp-server/protected-resource.js';
import type { EngineMetrics } from './metrics/engine-metrics.js';
import { WHATSAPP_VERIFY_TOKEN_PARAM } from './whatsapp/whatsapp-router.js';

export type EngineAppOptions = {
  logger: Logger;
  /** Where the engine's figures are counted; served by the metrics listener when METRICS_PORT is set. */
  metrics: EngineMetrics;
  /** Browser origins allowed to call the agent endpoints (ENGINE_CORS_ORIGINS). */
  corsOrigins: string[];
  /** The agent served under /agents/{agentId}, loaded if need be; undefined: not served here (404). */
  openAgent: (agentId: string) => Promise<ServedAgent | undefined>;
  /** What the root serves: the one agent's API (a dedicated engine), or the pool's own routes. */
  root: Router;
  /** ENGINE_PUBLIC_URL's origin, for the URLs a response names; undefined: the request's own. */
  publicOrigin: string | undefined;
};

const NO_SUCH_AGENT = 'No such agent on this engine.';

/** Builds the engine's Express app, without listening: each agent's API under /agents/{id}, and a root. */
export function createEngineApp(options: EngineAppOptions): Express {
  const { logger, metrics, corsOrigins, openAgent, root } = options;
  const app = express();
  app.disable('x-powered-by');
  app.use(measureHttpRequests(metrics.registry));
  // Meta's verify handshake carries the integration's verify token in the query string. The launcher
  // and orchestrators poll /health, which answers 503 until the engine is ready.
  app.use(requestLogger(logger, { secretQueryParams: [WHATSAPP_VERIFY_TOKEN_PARAM], probePaths: ['/health'] }));
  // A browser frontend on an allowed origin streams with a manager-minted bearer token: no cookies,
  // so CORS is granted without credentials.
  app.use(
    corsForAllowedOrigins(corsOrigins, {
      credentials: false,
      methods: ['GET', 'POST', 'DELETE'],
      // A2A clients name the protocol version they speak, and the extensions they want, in headers.
      allowedHeaders: [
        'Authorization',
        'Content-Type',
        'Accept',
        'X-Request-Id',
        'traceparent',
        'tracestate',
        'A2A-Version',
        'A2A-Extensions',
      ],
      // WWW-Authenticate tells a browser an expired token (refresh it) from a refused one; the lists'
      // total and next cursor let it page through the caller's threads and runs.
      exposedHeaders: [
        'X-Engine-Config-Version',
        'X-Request-Id',
        'WWW-Authenticate',
        'traceresponse',
        'X-Total-Count',
        'X-Next-Cursor',
      ],
    }),
  );
  // Every route's query string; each body is checked where its route parses it, after authentication.
  app.use(refuseUnstorableInput({ maxBodyDepth: JSON_MAX_DEPTH }));
  // RFC 9728's path-inserted metadata URL of an agent's MCP endpoint lies outside the agent's base path.
  app.get(`${PROTECTED_RESOURCE_PATH}/agents/:agentId${MCP_PATH}`, async (req, res) => {
    const served = await findAgent(openAgent, req.params.agentId);
    sendResourceMetadata(req, res, {
      source: served.holder,
      base: `/agents/${served.agentId}`,
      publicOrigin: options.publicOrigin,
    });
  });
  app.use('/agents/:agentId', agentRoutes(openAgent));
  app.use(root);
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}

async function findAgent(openAgent: EngineAppOptions['openAgent'], id: unknown): Promise<ServedAgent> {
  const agentId = ZUuid.safeParse(id);
  if (!agentId.success) throw new AppError('not_found', NO_SUCH_AGENT);
  const served = await openAgent(agentId.data);
  if (served === undefined) throw new AppError('not_found', NO_SUCH_AGENT);
  return served;
}

/** Hands the request to the agent it names, with the agent's base path taken off. */
function agentRoutes(openAgent: EngineAppOptions['openAgent']): RequestHandler {
  return async (req, res, next) => {
    (await findAgent(openAgent, req.params.agentId)).router(req, res, next);
  };
}
