import { type Logger, type MetricsListener, type MetricsSettings, startMetricsListener } from '@agentplane/server-kit';
import { createManagerMetrics, type ManagerMetrics } from './manager-metrics.js';

/** The manager's metrics and their listener, when METRICS_PORT is set; nothing is measured otherwise. */
export async function serveManagerMetrics(
  settings: MetricsSettings,
  logger: Logger,
): Promise<{ metrics: ManagerMetrics; listener: MetricsListener } | undefined> {
  if (settings === undefined) return undefined;
  const metrics = createManagerMetrics();
  return { metrics, listener: await startMetricsListener(metrics.registry, settings, logger) };
}
