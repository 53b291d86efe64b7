// The manager's metrics, in one registry per manager (server-kit's createMetricsRegistry): its HTTP
// requests (server-kit's middleware, wired in app.ts) and its publishes of engine configs.
import { createMetricsRegistry, Histogram, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';

export type PublishMetrics = {
  duration: Histogram;
  /** Agents whose engine config one publish recomputed. */
  fanOut: Histogram;
};

export type ManagerMetrics = { registry: Registry; publish: PublishMetrics };

export function createManagerMetrics(): ManagerMetrics {
  const registry = createMetricsRegistry('manager');
  return {
    registry,
    publish: {
      duration: new Histogram({
        name: `${METRIC_PREFIX}publish_duration_seconds`,
        help: "Time to recompute, store and announce the engine configs of a write's agents, inside its transaction.",
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
        registers: [registry],
      }),
      fanOut: new Histogram({
        name: `${METRIC_PREFIX}publish_fan_out_agents`,
        help: 'Agents whose engine config one publish recomputed (a shared resource changes many).',
        buckets: [0, 1, 2, 5, 10, 25, 50, 100, 250, 1000],
        registers: [registry],
      }),
    },
  };
}
