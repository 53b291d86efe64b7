// Everything an engine holds for one agent it serves, built from its database handle and its config:
// the config holder (snapshots: runtime, MCP connections, authenticator), the run store with its queue,
// leases and news, the channel worker, the retention jobs, and the router of its engine API. Nothing
// here is shared with another agent but the engine's services; the handle to the agent's rows is
// reachable from this object only.
import type { TEngineConfig } from '@agentplane/contracts';
import { notFoundHandler } from '@agentplane/server-kit';
import { Router } from 'express';
import { addA2aRoutes } from '../a2a/a2a-router.js';
import { scopesOf } from '../budgets/budget-guard.js';
import { addChannelRoutes } from '../channels/channel-router.js';
import { type ChannelWorker, startChannelWorker } from '../channels/channel-worker.js';
import { startInboundPruner } from '../channels/inbound-retention.js';
import { type ConfigHolder, createConfigHolder } from '../config-source/config-holder.js';
import { createSecretOpener } from '../config-source/parse-engine-config.js';
import { readPinnedConfig } from '../config-source/read-pinned-config.js';
import type { AgentDb } from '../database/agent-db.js';
import type { ChannelHandlers, ChannelListener } from '../database/shared-listener.js';
import { addHealthRoutes } from '../health/health-router.js';
import { createEngineApi } from '../http/engine-api.js';
import { addInfoRoutes } from '../info/info-router.js';
import { addMcpRoutes } from '../mcp-server/mcp-routes.js';
import { type ChannelWaiting, readChannelWaiting } from '../metrics/channel-queue-metrics.js';
import { addOpenApiRoutes } from '../openapi/engine-openapi.js';
import type { Pruner } from '../retention/prune-in-batches.js';
import { createActiveRuns } from '../runs/active-runs.js';
import type { RunStore } from '../runs/recorded-run.js';
import { createRunFollowReads } from '../runs/run-follow-reads.js';
import { type RunLeases, startRunLeases } from '../runs/run-leases.js';
import { startRunNotifications } from '../runs/run-notifications.js';
import { type RunQueue, startRunQueue } from '../runs/run-queue.js';
import { startRunPruner } from '../runs/run-retention.js';
import { addRunRoutes } from '../runs/run-router.js';
import { createAgentSnapshot } from '../snapshot/agent-snapshot.js';
import { createPinnedSnapshots, type PinnedSnapshotsOptions } from '../snapshot/pinned-snapshots.js';
import { startThreadPruner } from '../threads/thread-retention.js';
import { addThreadRoutes } from '../threads/thread-router.js';
import { addWhatsAppRoutes } from '../whatsapp/whatsapp-router.js';
import type { EngineServices } from './engine-services.js';

export type ServedAgent = {
  agentId: string;
  holder: ConfigHolder;
  /** The agent's engine API, mounted at the engine's root (dedicated) and under /agents/{id}. */
  router: Router;
  /** True while a request, a run or a queued run of the agent is in hand: it is not unloaded then. */
  busy: () => boolean;
  /** Looks for queued runs and channel messages now: after a config was applied, they may start. */
  wake: () => void;
  /** The agent's channel queue by provider, for the metrics; undefined without a database or an answer in time. */
  readChannelQueue: () => Promise<ChannelWaiting[] | undefined>;
  /** Ends the runs still going after `graceMs` (a graceful stop), then stops claiming new ones. */
  drain: (graceMs: number) => Promise<void>;
  close: () => Promise<void>;
};

/** The agent's database, when the engine has one: its handle and its run channel. */
export type AgentStore = { db: AgentDb; listenOnRuns: (handlers: ChannelHandlers) => ChannelListener };

export function createServedAgent(options: {
  agentId: string;
  services: EngineServices;
  store: AgentStore | undefined;
  /** Opens the sealed secrets of this agent's config: its own key, or its pool's (bound to its id). */
  configKey: string | undefined;
}): ServedAgent {
  const { agentId, services, store } = options;
  const { env, metrics, egress, spanExport, resolvers } = services;
  const logger = services.logger.child({ agent_id: agentId });
  const openSecret = createSecretOpener(
    options.configKey === undefined ? undefined : { agentKey: options.configKey, agentId },
  );
  // The served config's snapshots and those of the versions runs are pinned to are built alike.
  const buildSnapshot = (config: TEngineConfig, version: number) =>
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
      db: store?.db,
      logger,
      toolCalls: metrics.toolCalls,
      toolRefusals: metrics.toolRefusals,
      guardrailActions: metrics.guardrailActions,
      budgets: store === undefined ? undefined : { db: store.db, logger },
    });
  const holder = createConfigHolder({
    openSecret,
    buildSnapshot,
    logger,
    db: store === undefined ? 'not_used' : 'unreachable',
  });

  let requests = 0;
  const parts =
    store === undefined
      ? undefined
      : startRunParts(agentId, store, holder, services, {
          readConfig: (version) => readPinnedConfig(store.db, agentId, version, openSecret),
          buildSnapshot,
          idleMs: env.runs.pinnedIdleMs,
        });
  const router = Router();
  router.use((_req, res, next) => {
    requests++;
    res.once('close', () => requests--);
    next();
  });
  const api = createEngineApi(holder, { inputMaxBytes: env.runs.inputMaxBytes, publicOrigin: env.publicOrigin });
  addInfoRoutes(api, holder);
  addHealthRoutes(api, holder, services.adapters);
  addRunRoutes(api, {
    metrics,
    ...(services.keepaliveMs === undefined ? {} : { keepaliveMs: services.keepaliveMs }),
    ...(parts === undefined ? {} : { store: parts.runs }),
  });
  addThreadRoutes(api, store?.db);
  addMcpRoutes(api, { store: parts?.runs, source: holder, publicOrigin: env.publicOrigin });
  const inbox = store === undefined || parts === undefined ? undefined : { pool: store.db, wake: parts.worker.wake };
  addWhatsAppRoutes(api, inbox);
  addChannelRoutes(api, { adapters: services.adapters, inbox, publicOrigin: env.publicOrigin });
  addA2aRoutes(api, holder, { store: parts?.runs, keepaliveMs: services.keepaliveMs, publicOrigin: env.publicOrigin });
  addOpenApiRoutes(api);
  router.use(api.router);
  router.use(notFoundHandler);

  return {
    agentId,
    holder,
    router,
    readChannelQueue: async () => (store === undefined ? undefined : readChannelWaiting(store.db, agentId, logger)),
    // Runs waiting in line for a slot are in hand too: unloaded, nobody here would claim them.
    wake: () => {
      parts?.queue.wake();
      parts?.worker.wake();
    },
    busy: () => requests > 0 || (parts?.runs.active.size() ?? 0) > 0 || (parts?.queue.waiting() ?? false),
    drain: async (graceMs) => {
      await parts?.queue.stop();
      await parts?.runs.active.drain(graceMs);
    },
    close: async () => {
      try {
        await parts?.stop();
      } finally {
        await holder.close();
      }
    },
  };
}

type RunParts = {
  runs: RunStore;
  queue: RunQueue;
  worker: ChannelWorker;
  stop: () => Promise<void>;
};

// With a database: the run store, the queue's worker with the snapshots of the versions its runs are
// pinned to, the runs' leases and news, the channel worker, and the pruning of finished messages, runs
// and threads.
function startRunParts(
  agentId: string,
  store: AgentStore,
  holder: ConfigHolder,
  services: EngineServices,
  pinnedVersions: PinnedSnapshotsOptions,
): RunParts {
  const { env, metrics, owner } = services;
  const logger = services.logger.child({ agent_id: agentId });
  const pool = store.db;
  const notifications = startRunNotifications({ listen: store.listenOnRuns });
  const active = createActiveRuns({ db: pool, agentId, owner, logger });
  notifications.onCancelNews((runId) => void active.checkCancels(runId === undefined ? undefined : [runId]));
  const spendTarget = () => {
    const config = holder.current()?.config;
    return config === undefined ? undefined : { scopes: scopesOf(config), price: config.budgets.price };
  };
  const { leaseMs, eventLog, pendingCaps, interruptTtlSeconds } = env.runs;
  const base = {
    pool,
    agentId,
    owner,
    leaseMs,
    pendingCaps,
    eventLog,
    interruptTtlSeconds,
    notifications,
    follows: createRunFollowReads(pool, agentId),
    active,
    metrics,
    spendTarget,
  };
  const pinned = createPinnedSnapshots(pinnedVersions);
  const queue = startRunQueue({
    store: base,
    source: holder,
    pinned,
    slots: services.runSlots,
    pollMs: env.runs.queuePollMs,
    logger,
  });
  const runs: RunStore = { ...base, wakeQueue: queue.wake };
  const leases: RunLeases = startRunLeases({
    db: pool,
    agentId,
    owner,
    leaseMs,
    logger,
    onCancelRequested: (runIds) => void active.checkCancels(runIds),
  });
  const worker = startChannelWorker({
    pool,
    source: holder,
    agentId,
    settings: env.channels.worker,
    adapters: services.adapters,
    runs,
    logger,
  });
  const pruners: Pruner[] = [
    startInboundPruner({ db: pool, agentId, retentionMs: env.channels.worker.retentionMs, logger }),
    startRunPruner({ db: pool, agentId, retentionMs: env.runs.retentionMs, logger }),
    startThreadPruner({ db: pool, agentId, retentionMs: env.threadRetentionMs, logger }),
  ];
  return {
    runs,
    queue,
    worker,
    stop: async () => {
      const stops = [queue.stop, worker.stop, leases.stop, notifications.stop, ...pruners.map((p) => p.stop)];
      const failed = (await Promise.allSettled(stops.map((stop) => stop()))).find((r) => r.status === 'rejected');
      // Once no run can start on them any more.
      await pinned.close();
      if (failed !== undefined) throw failed.reason;
    },
  };
}
