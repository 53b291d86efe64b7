// Wires the environment to a running engine: the services its agents share, a boot mode (database or
// file) that says which agents it serves, the app, and the listener.

import { randomUUID } from 'node:crypto';
import { type Logger, type RunningServer, serve, startMetricsListener } from '@agentplane/server-kit';
import type { Router } from 'express';
import { createEngineApp } from './app.js';
import { createJwksResolver } from './auth/jwks-resolver.js';
import { bootDatabaseMode } from './boot/database-mode.js';
import { bootFileMode } from './boot/file-mode.js';
import type { AnyChannelAdapter } from './channels/channel-adapter.js';
import { buildChannelAdapters, channelAdapters } from './channels/channel-adapters.js';
import type { ConfigHolder } from './config-source/config-holder.js';
import { createEgressPolicy } from './egress/egress-policy.js';
import type { EngineEnv } from './env.js';
import type { EngineServices } from './hosting/engine-services.js';
import { measureAgents } from './metrics/agent-metrics.js';
import { createEngineMetrics } from './metrics/engine-metrics.js';
import { measureRunSlots } from './metrics/run-slot-metrics.js';
import { createFairRunSlots } from './runs/fair-run-slots.js';
import { createSpanExportThread } from './tracing/export-thread.js';

export type StartEngineOptions = {
  logger: Logger;
  handleSignals?: boolean;
  keepaliveMs?: number;
  /** Adapters in place of the registry's for their providers: tests' fakes of a provider, never set in production. */
  channelAdapters?: AnyChannelAdapter[];
};

export type RunningEngine = RunningServer & {
  /** The config holders of the agents loaded now (one, for a dedicated or file-mode engine). */
  holders: () => ConfigHolder[];
  /** The API of each agent loaded now, whose routes the OpenAPI test compares with the document. */
  routers: () => Router[];
  /** The /metrics URL, when METRICS_PORT is set. */
  metricsUrl: string | undefined;
};

export async function startEngine(env: EngineEnv, options: StartEngineOptions): Promise<RunningEngine> {
  const services = createEngineServices(env, options);
  const boot = await (env.source.kind === 'file'
    ? bootFileMode(env.source.path, services)
    : bootDatabaseMode(env.source, services)
  ).catch(async (error: unknown) => {
    await closeEngineServices(services);
    throw error;
  });
  measureAgents(services.metrics.registry, boot);
  measureRunSlots(services.metrics.registry, services.runSlots);
  const app = createEngineApp({ ...services, corsOrigins: env.corsOrigins, publicOrigin: env.publicOrigin, ...boot });
  const metricsListener =
    env.metrics === undefined
      ? undefined
      : await startMetricsListener(services.metrics.registry, env.metrics, services.logger);
  const running = await serve(() => app, {
    port: env.port,
    host: env.host,
    logger: services.logger,
    handleSignals: options.handleSignals ?? false,
    shutdownTimeoutMs: env.runs.shutdownGraceMs,
    // While leases and news still work: runs get the grace period to finish, then the replica ends the
    // rest itself (`failed`, "engine stopped", with a RUN_ERROR), so no client waits out a lease.
    drain: (graceMs) => boot.drain(graceMs),
    onClose: async () => {
      try {
        await boot.close();
      } finally {
        await Promise.all([closeEngineServices(services), metricsListener?.close()]);
      }
    },
  });
  return {
    ...running,
    holders: () => boot.loaded().map((served) => served.holder),
    routers: () => boot.loaded().map((served) => served.router),
    metricsUrl: metricsListener?.url,
  };
}

function createEngineServices(env: EngineEnv, options: StartEngineOptions): EngineServices {
  const { logger } = options;
  const egress = createEgressPolicy({
    allow: env.egressAllow,
    onRefused: ({ host, address, range }) =>
      logger.warn({ host, address, range }, 'a connection to a tenant-chosen URL was refused by the egress policy'),
  });
  // The agent's own SSO issuer is the tenant's choice; ENGINE_OIDC_* and the manager are the operator's.
  const failureTtlMs = env.oidcFailureTtlMs;
  return {
    env,
    logger,
    metrics: createEngineMetrics(),
    egress,
    spanExport: createSpanExportThread({ egress, logger }),
    resolvers: {
      tenant: createJwksResolver({ fetch: egress.fetch, failureTtlMs }),
      operator: createJwksResolver({ failureTtlMs }),
    },
    owner: randomUUID(),
    // One agent's cap on a pool, so that no tenant takes every slot; a dedicated engine's agent may take all.
    runSlots: createFairRunSlots({
      total: env.runs.queueConcurrency,
      perAgent: env.source.kind === 'pool' ? env.poolAgentConcurrency : env.runs.queueConcurrency,
    }),
    keepaliveMs: options.keepaliveMs,
    adapters: channelAdapters(buildChannelAdapters(env.channels), options.channelAdapters),
  };
}

async function closeEngineServices(services: EngineServices): Promise<void> {
  await Promise.all([services.egress.close(), services.spanExport.close()]);
}
