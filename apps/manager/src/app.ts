import { JSON_BODY_MAX_BYTES, JSON_MAX_DEPTH, type OpenApiRoute } from '@agentplane/contracts';
import { createAgentKeyring, createSecretBox, type Db } from '@agentplane/db';
import {
  corsForAllowedOrigins,
  type Logger,
  measureHttpRequests,
  notFoundHandler,
  problemHandler,
  refuseUnstorableInput,
  requestLogger,
  traceHttpRequests,
} from '@agentplane/server-kit';
import express, { type Express, type RequestHandler, type Router } from 'express';
import { addAgentCallRoutes } from './agent-calls/agent-call-routes.js';
import { addAgentRunRoutes } from './agent-runs/agent-run-routes.js';
import { addAgentRoutes } from './agents/agent-routes.js';
import { addAuthRoutes } from './auth/auth-routes.js';
import { FailureBackoff } from './auth/failure-backoff.js';
import { requirePlatformOperator } from './auth/platform-operators.js';
import { authAddressRateLimit } from './auth/rate-limits.js';
import { requireSession } from './auth/require-session.js';
import { createSessionMiddleware } from './auth/session-middleware.js';
import { addSessionRoutes } from './auth/session-routes.js';
import type { PrismaSessionStore } from './auth/session-store.js';
import { reuseFor } from './batching/reuse-for.js';
import { addBudgetRoutes } from './budgets/budget-routes.js';
import type { ManagerConfig } from './config.js';
import { consoleIsBuilt, consoleRouter } from './console/serve-console.js';
import { addDatasetRoutes } from './datasets/dataset-routes.js';
import { addEnginePoolRoutes } from './engine-pools/engine-pool-routes.js';
import { addEngineCredentialsRoute } from './engine-roles/engine-credentials-routes.js';
import { addOnlineScoringRoutes } from './evaluations/online/online-scoring-routes.js';
import { addScorerRoutes } from './evaluations/scorers/scorer-routes.js';
import { addExperimentRoutes } from './experiments/experiment-routes.js';
import { addHealthRoutes } from './health/health-routes.js';
import { checkReadiness, READINESS_REUSE_MS } from './health/readiness.js';
import { type Access, API_PREFIX, ApiRouter } from './http/api-router.js';
import { requireJsonBody, requireTrustedOrigin, securityHeaders } from './http/security.js';
import { addInvitationRoutes } from './invitations/invitation-routes.js';
import type { ManagerMetrics } from './metrics/manager-metrics.js';
import { addOpenApiRoutes } from './openapi/openapi-routes.js';
import {
  GUARDRAILS,
  INTEGRATIONS,
  MCP_SERVERS,
  OBSERVABILITY_CONFIGS,
  SSO_CONFIGS,
} from './resources/resource-kinds.js';
import { addResourceRoutes } from './resources/resource-routes.js';
import { addScheduleRoutes } from './schedules/schedule-routes.js';
import { SigningKeys } from './tokens/signing-keys.js';
import { addAgentTokenRoute, wellKnownRouter } from './tokens/token-routes.js';
import { addUsageRoutes } from './usage/usage-routes.js';
import { addVersionRoutes } from './versions/version-routes.js';
import { addWebhookRoutes } from './webhooks/webhook-routes.js';
import { requireHeaderWorkspace, requirePathWorkspace } from './workspaces/require-workspace.js';
import { addWorkspaceRoutes } from './workspaces/workspace-routes.js';

export type ManagerDependencies = {
  config: ManagerConfig;
  db: Db;
  logger: Logger;
  sessionStore?: PrismaSessionStore;
  /** Set when METRICS_PORT is: requests and publishes are measured for the metrics listener. */
  metrics?: ManagerMetrics;
  /** Milliseconds since the epoch; tests pass their own to decide when a cached answer expires. */
  now?: () => number;
  /** This replica's webhook delivery worker, told when a route queues a delivery. */
  wakeWebhooks?: () => void;
  /** This replica's experiment worker, told when a route launches or cancels an experiment. */
  wakeExperiments?: () => void;
  /** How long a readiness check may take (READINESS_TIMEOUT_MS unless given). */
  readinessTimeoutMs?: number;
};

/** The app, with what its routes declared, for the OpenAPI completeness test. */
export type ManagerApp = Express & { apiRoutes: OpenApiRoute[]; apiRouter: Router };

function accessMiddlewareFor(db: Db) {
  return (access: Access): RequestHandler[] => {
    switch (access.kind) {
      case 'public':
        return [];
      case 'session':
        return [requireSession];
      case 'workspace':
        return [requireSession, requireHeaderWorkspace(db, access.minRole)];
      case 'workspace-path':
        return [requireSession, requirePathWorkspace(db, access.minRole)];
      case 'platform-operator':
        return [requireSession, requirePlatformOperator(db)];
    }
  };
}

/** Builds the manager's Express app from its dependencies, without listening. */
export function createManagerApp({
  config,
  db,
  logger,
  sessionStore,
  metrics,
  now = Date.now,
  wakeWebhooks,
  wakeExperiments,
  readinessTimeoutMs,
}: ManagerDependencies): ManagerApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy ?? false);
  if (metrics !== undefined) app.use(measureHttpRequests(metrics.registry));
  if (config.tracing !== undefined) app.use(traceHttpRequests());
  app.use(requestLogger(logger, { probePaths: [`${API_PREFIX}/healthz`, `${API_PREFIX}/readyz`] }));
  app.use(securityHeaders());
  app.use(
    corsForAllowedOrigins(config.corsOrigins, {
      credentials: true,
      allowedHeaders: ['Content-Type', 'X-Workspace-Id', 'X-Request-Id'],
      exposedHeaders: ['X-Total-Count', 'X-Request-Id', 'Retry-After', 'X-Dataset-Version'],
    }),
  );
  app.use(requireTrustedOrigin({ publicOrigin: config.publicOrigin, allowed: config.corsOrigins }));
  app.use(requireJsonBody);
  app.use(express.json({ limit: JSON_BODY_MAX_BYTES }));
  app.use(refuseUnstorableInput({ maxBodyDepth: JSON_MAX_DEPTH }));

  const api = new ApiRouter(accessMiddlewareFor(db));
  addHealthRoutes(api, {
    readiness: reuseFor(() => checkReadiness(db, { logger, timeoutMs: readinessTimeoutMs }), {
      ttlMs: READINESS_REUSE_MS,
      now,
    }),
  });
  addOpenApiRoutes(api, { sessionCookie: config.session.cookieName });
  api.router.use(createSessionMiddleware(db, config.session, sessionStore));
  const { authRateLimit } = config;
  addAuthRoutes(api, {
    db,
    config,
    addressLimit: authAddressRateLimit(db, authRateLimit),
    backoff: new FailureBackoff(db, {
      failuresBeforeBackoff: authRateLimit.failuresBeforeBackoff,
      baseMs: authRateLimit.backoffBaseMs,
      maxMs: authRateLimit.backoffMaxMs,
      forgetAfterMs: authRateLimit.windowMs,
    }),
  });
  addSessionRoutes(api, { db, config });
  const box = createSecretBox(config.secretsKey.current, config.secretsKey.previous);
  const agentKeys = createAgentKeyring(config.secretsKey.current, config.secretsKey.previous);
  const resources = {
    db,
    box,
    policy: config.operatorPolicy,
    egressAllow: config.egressAllow,
    agentKeys,
    prices: config.modelPrices,
    engineRoles: config.engines.roles,
    enginePools: config.engines.pools,
    publishMetrics: metrics?.publish,
    versionRetention: config.agentVersionRetention,
  };
  addWorkspaceRoutes(api, resources);
  addInvitationRoutes(api, { db, ttlSeconds: config.invitationTtlSeconds });
  addResourceRoutes(api, resources, INTEGRATIONS);
  addResourceRoutes(api, resources, MCP_SERVERS);
  addResourceRoutes(api, resources, SSO_CONFIGS);
  addResourceRoutes(api, resources, OBSERVABILITY_CONFIGS);
  addResourceRoutes(api, resources, GUARDRAILS);
  const agents = {
    ...resources,
    managerOrigins: [config.publicOrigin, config.issuer].filter((origin) => origin !== undefined),
    maxAgentsPerWorkspace: config.maxAgentsPerWorkspace,
    enginePools: config.engines.pools,
    managerIssuer: config.issuer,
  };
  addAgentRoutes(api, agents);
  addVersionRoutes(api, agents);
  addBudgetRoutes(api, { ...resources, now });
  const engineCredentials = {
    ...resources,
    enginePools: config.engines.pools,
    engineDatabaseUrl: config.engines.databaseUrl,
    engineConnectionsTotal: config.engines.connectionsTotal,
  };
  addEngineCredentialsRoute(api, engineCredentials);
  addEnginePoolRoutes(api, engineCredentials);
  addAgentRunRoutes(api, { db });
  addScheduleRoutes(api, {
    db,
    now: () => new Date(now()),
    maxSchedulesPerAgent: config.schedules.maxPerAgent,
  });
  addWebhookRoutes(api, {
    db,
    box,
    egressAllow: config.egressAllow,
    maxWebhooksPerWorkspace: config.webhooks.maxPerWorkspace,
    wakeWebhooks,
  });
  addScorerRoutes(api, { db, logger, egressAllow: config.egressAllow, settings: config.scorers });
  addOnlineScoringRoutes(api, {
    db,
    box,
    logger,
    egressAllow: config.egressAllow,
    judgeTimeoutMs: config.scorers.judgeTimeoutMs,
    maxQueuedPerAgent: config.onlineScoring.maxQueuedPerAgent,
  });
  addDatasetRoutes(api, { db, limits: config.datasets });
  addExperimentRoutes(api, {
    db,
    box,
    agentKeys,
    egressAllow: config.egressAllow,
    logger,
    settings: config.experiments,
    wakeExperiments,
  });
  addUsageRoutes(api, { db, modelPrices: config.modelPrices, now });
  const tokens = { db, keys: new SigningKeys(db, box), issuer: config.issuer, ttlSeconds: config.agentTokenTtlSeconds };
  addAgentTokenRoute(api, tokens);
  addAgentCallRoutes(api, { ...tokens, maxDepth: config.maxAgentCallDepth });
  app.use(wellKnownRouter(tokens));
  app.use(API_PREFIX, api.router);
  if (consoleIsBuilt(config.console.dir)) app.use(consoleRouter(config.console));

  app.use(notFoundHandler);
  app.use(problemHandler);
  return Object.assign(app, { apiRoutes: api.routes, apiRouter: api.router });
}
