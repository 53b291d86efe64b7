// What the agents an engine serves share: its settings, logger, metrics registry, egress policy, span
// export thread and JWKS caches. None of it holds an agent's data or a handle to the database.
import type { Logger } from '@agentplane/server-kit';
import type { JwksResolvers } from '../auth/jwks-resolver.js';
import type { ChannelAdapters } from '../channels/channel-adapters.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import type { EngineEnv } from '../env.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { FairRunSlots } from '../runs/fair-run-slots.js';
import type { SpanExportThread } from '../tracing/export-thread.js';

export type EngineServices = {
  env: EngineEnv;
  logger: Logger;
  metrics: EngineMetrics;
  egress: EgressPolicy;
  spanExport: SpanExportThread;
  resolvers: JwksResolvers;
  /** This replica, as the owner of the runs it runs. */
  owner: string;
  /** The replica's slots for queued runs, handed out fairly over its agents. */
  runSlots: FairRunSlots;
  /** The messaging providers this engine takes deliveries from and replies through. */
  adapters: ChannelAdapters;
  /** Interval of SSE keepalive comments (15 s unless a test needs it shorter). */
  keepaliveMs: number | undefined;
};
