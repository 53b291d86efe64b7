// Wires the environment to a running engine: config source, snapshot builder, app, listener.
import { randomUUID } from 'node:crypto';
import { ZUuid } from '@agentplane/contracts';
import {
  ConfigError,
  type Logger,
  type MetricsListener,
  type RunningServer,
  serve,
  startMetricsListener,
} from '@agentplane/server-kit';
import pg from 'pg';
import { createEngineApp } from './app.js';
import { createJwksResolver } from './auth/jwks-resolver.js';
import { scopesOf } from './budgets/budget-guard.js';
import { hasBudgets } from './budgets/budget-refusal.js';
import { type ConfigHolder, createConfigHolder } from './config-source/config-holder.js';
import { type ConfigSource, startDbConfigSource } from './config-source/db-config-source.js';
import { createSecretOpener } from './config-source/parse-engine-config.js';
import { FILE_CONFIG_VERSION, readConfigFile } from './config-source/read-config-file.js';
import { verifyEngineRole } from './config-source/verify-engine-role.js';
import { createEgressPolicy } from './egress/egress-policy.js';
import type { EngineEnv } from './env.js';
import { measureConfig } from './metrics/config-metrics.js';
import { createEngineMetrics } from './metrics/engine-metrics.js';
import { measureWhatsAppQueue } from './metrics/whatsapp-queue-metrics.js';
import type { Pruner } from './retention/prune-in-batches.js';
import { createActiveRuns } from './runs/active-runs.js';
import type { RunStore } from './runs/recorded-run.js';
import { createRunFollowReads } from './runs/run-follow-reads.js';
import { type RunLeases, startRunLeases } from './runs/run-leases.js';
import { startRunNotifications } from './runs/run-notifications.js';
import { type RunQueue, startRunQueue } from './runs/run-queue.js';
import { startRunPruner } from './runs/run-retention.js';
import { createAgentSnapshot } from './snapshot/agent-snapshot.js';
import { startThreadPruner } from './threads/thread-retention.js';
import { createSpanExportThread } from './tracing/export-thread.js';
import { startInboundPruner } from './whatsapp/inbound-retention.js';
import { startWhatsAppWorker, type WhatsAppWorker } from './whatsapp/whatsapp-worker.js';

export type StartEngineOptions = {
  logger: Logger;
  handleSignals?: boolean;
  keepaliveMs?: number;
};

export type RunningEngine = RunningServer & {
  holder: ConfigHolder;
  /** The /metrics URL, when METRICS_PORT is set. */
  metricsUrl: string | undefined;
};

export async function startEngine(env: EngineEnv, options: StartEngineOptions): Promise<RunningEngine> {
  const { logger } = options;
  const metrics = createEngineMetrics();
  const egress = createEgressPolicy({
    allow: env.egressAllow,
    onRefused: ({ host, address, range }) =>
      logger.warn({ host, address, range }, 'a connection to a tenant-chosen URL was refused by the egress policy'),
  });
  const spanExport = createSpanExportThread({ egress, logger });
  // The agent's own SSO issuer is the tenant's choice; ENGINE_OIDC_* and the manager are the operator's.
  const failureTtlMs = env.oidcFailureTtlMs;
  // The engine's pool, once it has a database (below): budgets are counted there.
  let pool: pg.Pool | undefined;
  const resolvers = {
    tenant: createJwksResolver({ fetch: egress.fetch, failureTtlMs }),
    operator: createJwksResolver({ failureTtlMs }),
  };
  const holder = createConfigHolder({
    openSecret: createSecretOpener(env.source.kind === 'database' ? env.source : undefined),
    buildSnapshot: (config, version) =>
      createAgentSnapshot(config, version, {
        resolvers,
        egress,
        spanExport,
        oidcFallback: env.oidcFallback,
        managerIssuer: env.managerIssuer,
        authDisabled: env.authDisabled,
        models: env.models,
        stdio: env.stdio,
        agentsDir: env.agentsDir,
        databaseUrl: env.databaseUrl,
        logger,
        toolCalls: metrics.toolCalls,
        budgets: pool === undefined ? undefined : { db: pool, logger },
      }),
    logger,
    db: env.source.kind === 'database' ? 'unreachable' : 'not_used',
  });
  measureConfig(metrics.registry, holder);

  let source: ConfigSource | undefined;
  // Where the WhatsApp queue and conversation threads live: the agent's own role, in file mode too
  // when DATABASE_URL is set.
  let store: { databaseUrl: string; agentId: string } | undefined;
  let fileConfig: unknown;
  if (env.source.kind === 'database') {
    await verifyEngineRole(env.source.databaseUrl, env.source.agentId, logger);
    store = { databaseUrl: env.source.databaseUrl, agentId: env.source.agentId };
  } else {
    // A config file that does not load is a deployment mistake: stop with its reason, do not serve 503s.
    fileConfig = await readConfigFile(env.source.path);
    // Thread memory in the database goes to the agent's own schema, through the agent's own role.
    const agentId = ZUuid.safeParse((fileConfig as { agent?: { id?: unknown } }).agent?.id);
    if (env.databaseUrl !== undefined && agentId.success) {
      await verifyEngineRole(env.databaseUrl, agentId.data, logger);
      store = { databaseUrl: env.databaseUrl, agentId: agentId.data };
    }
  }

  // With a database: a small pool for the WhatsApp queue, conversation threads and runs, the queue's
  // worker, the runs' leases and news, and the pruning of finished messages and runs.
  let worker: WhatsAppWorker | undefined;
  let runs: RunStore | undefined;
  let leases: RunLeases | undefined;
  let queue: RunQueue | undefined;
  const pruners: Pruner[] = [];
  if (store !== undefined) {
    pool = new pg.Pool({
      connectionString: store.databaseUrl,
      max: 4,
      connectionTimeoutMillis: 5000,
      query_timeout: 10_000,
    });
    pool.on('error', (error) => logger.debug({ err: error }, 'idle database connection lost'));
  }
  if (env.source.kind === 'file') {
    // Applied once the pool exists, so that the snapshot counts budgets in the database.
    await applyConfigFile(holder, fileConfig, env.source.path, pool).catch(async (error: unknown) => {
      // A config refused for its budgets was applied already: its MCP connections close with the holder.
      await holder.close();
      await Promise.all([pool?.end(), spanExport.close()]);
      throw error;
    });
  }
  if (store !== undefined && pool !== undefined) {
    const { agentId } = store;
    const owner = randomUUID();
    const notifications = startRunNotifications({ databaseUrl: store.databaseUrl, agentId, logger });
    const active = createActiveRuns({ db: pool, agentId, owner, logger });
    notifications.onCancelNews((runId) => void active.checkCancels(runId === undefined ? undefined : [runId]));
    const spendTarget = () => {
      const config = holder.current()?.config;
      return config === undefined ? undefined : { scopes: scopesOf(config), price: config.budgets.price };
    };
    const { leaseMs, eventLog, pendingCaps } = env.runs;
    const follows = createRunFollowReads(pool, agentId);
    const base = {
      pool,
      agentId,
      owner,
      leaseMs,
      pendingCaps,
      eventLog,
      notifications,
      follows,
      active,
      metrics,
      spendTarget,
    };
    measureWhatsAppQueue(metrics.registry, { pool, agentId, logger });
    queue = startRunQueue({
      store: base,
      source: holder,
      limit: env.runs.queueConcurrency,
      pollMs: env.runs.queuePollMs,
      logger,
    });
    runs = { ...base, wakeQueue: queue.wake };
    leases = startRunLeases({
      db: pool,
      agentId,
      owner,
      leaseMs: runs.leaseMs,
      logger,
      onCancelRequested: (runIds) => void active.checkCancels(runIds),
    });
    worker = startWhatsAppWorker({ pool, source: holder, agentId, settings: env.whatsapp, runs, logger });
    pruners.push(
      startInboundPruner({ db: pool, agentId, retentionMs: env.whatsapp.retentionMs, logger }),
      startRunPruner({ db: pool, agentId, retentionMs: env.runs.retentionMs, logger }),
      startThreadPruner({ db: pool, agentId, retentionMs: env.threadRetentionMs, logger }),
    );
  }

  const app = createEngineApp({
    logger,
    holder,
    metrics,
    corsOrigins: env.corsOrigins,
    runInputMaxBytes: env.runs.inputMaxBytes,
    ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }),
    ...(pool === undefined || worker === undefined ? {} : { store: { pool, wake: worker.wake } }),
    ...(runs === undefined ? {} : { runs }),
  });
  const metricsListener: MetricsListener | undefined =
    env.metrics === undefined ? undefined : await startMetricsListener(metrics.registry, env.metrics, logger);
  const running = await serve(() => app, {
    port: env.port,
    host: env.host,
    logger,
    handleSignals: options.handleSignals ?? false,
    shutdownTimeoutMs: env.runs.shutdownGraceMs,
    // While leases and news still work: runs get the grace period to finish, then the replica ends the
    // rest itself (`failed`, "engine stopped", with a RUN_ERROR), so no client waits out a lease.
    drain: async (graceMs) => {
      await queue?.stop();
      await runs?.active.drain(graceMs);
    },
    onClose: async () => {
      await Promise.all([worker?.stop(), leases?.stop(), runs?.notifications.stop(), ...pruners.map((p) => p.stop())]);
      await source?.stop();
      await holder.close();
      await Promise.all([pool?.end(), egress.close(), spanExport.close(), metricsListener?.close()]);
    },
  });
  if (env.source.kind === 'database') {
    source = startDbConfigSource({ ...env.source, holder, logger });
  }
  return { ...running, holder, metricsUrl: metricsListener?.url };
}

async function applyConfigFile(holder: ConfigHolder, config: unknown, path: string, pool: pg.Pool | undefined) {
  const result = await holder.apply(config, FILE_CONFIG_VERSION);
  if (!result.applied) throw new ConfigError(`ENGINE_CONFIG_FILE ${path}: ${result.reason}`);
  // Spend is counted in the database, across replicas; without one a budget would silently not hold.
  const budgets = holder.current()?.config.budgets;
  if (pool === undefined && budgets !== undefined && hasBudgets(budgets)) {
    throw new ConfigError(`ENGINE_CONFIG_FILE ${path}: its budgets need DATABASE_URL, where they are counted`);
  }
}
