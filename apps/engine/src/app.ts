import { JSON_MAX_DEPTH, RUN_INPUT_MAX_BYTES_DEFAULT } from '@agentplane/contracts';
import {
  corsForAllowedOrigins,
  type Logger,
  measureHttpRequests,
  notFoundHandler,
  problemHandler,
  refuseUnstorableInput,
  requestLogger,
} from '@agentplane/server-kit';
import express, { type Express } from 'express';
import type { ConfigHolder } from './config-source/config-holder.js';
import { healthRouter } from './health/health-router.js';
import { infoRouter } from './info/info-router.js';
import type { EngineMetrics } from './metrics/engine-metrics.js';
import type { RunStore } from './runs/recorded-run.js';
import { runRouter } from './runs/run-router.js';
import { threadRouter } from './threads/thread-router.js';
import { WHATSAPP_VERIFY_TOKEN_PARAM, type WhatsAppInbox, whatsappRouter } from './whatsapp/whatsapp-router.js';

export type EngineDependencies = {
  logger: Logger;
  /** The current config and the state of its source; the app only reads it. */
  holder: ConfigHolder;
  /** Where the engine's figures are counted; served by the metrics listener when METRICS_PORT is set. */
  metrics: EngineMetrics;
  /** Interval of SSE keepalive comments (15 s unless a test needs it shorter). */
  keepaliveMs?: number;
  /** Database mode only: the WhatsApp queue and conversation threads (pool) and the worker to wake. */
  store?: WhatsAppInbox;
  /** Database mode only: runs as records, rejoinable (runs/recorded-run.ts). */
  runs?: RunStore;
  /** Browser origins allowed to call the agent endpoints (ENGINE_CORS_ORIGINS). */
  corsOrigins?: string[];
  /** The largest run input accepted, in bytes (ENGINE_RUN_INPUT_MAX_BYTES). */
  runInputMaxBytes?: number;
};

/** Builds the engine's Express app from its dependencies, without listening. */
export function createEngineApp({
  logger,
  holder,
  metrics,
  keepaliveMs,
  store,
  runs,
  corsOrigins = [],
  runInputMaxBytes = RUN_INPUT_MAX_BYTES_DEFAULT,
}: EngineDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(measureHttpRequests(metrics.registry));
  // Meta's verify handshake carries the integration's verify token in the query string.
  app.use(requestLogger(logger, { secretQueryParams: [WHATSAPP_VERIFY_TOKEN_PARAM] }));
  // A browser frontend on an allowed origin streams with a manager-minted bearer token: no cookies,
  // so CORS is granted without credentials.
  app.use(
    corsForAllowedOrigins(corsOrigins, {
      credentials: false,
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id', 'traceparent', 'tracestate'],
      // WWW-Authenticate tells a browser an expired token (refresh it) from a refused one.
      exposedHeaders: ['X-Engine-Config-Version', 'X-Request-Id', 'WWW-Authenticate', 'traceresponse'],
    }),
  );
  // Every route's query string; each body is checked where its route parses it, after authentication.
  app.use(refuseUnstorableInput({ maxBodyDepth: JSON_MAX_DEPTH }));
  app.use(healthRouter(holder));
  app.use(infoRouter(holder));
  app.use(
    runRouter(holder, {
      metrics,
      inputMaxBytes: runInputMaxBytes,
      ...(keepaliveMs === undefined ? {} : { keepaliveMs }),
      ...(runs === undefined ? {} : { store: runs }),
    }),
  );
  app.use(threadRouter(holder, store?.pool));
  app.use(whatsappRouter(holder, store));
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
