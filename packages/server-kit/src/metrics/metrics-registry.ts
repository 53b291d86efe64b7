// One Prometheus registry per running service (not prom-client's global one), so two services started
// in one process (tests, the bench) never share or double-register a metric.
import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every metric the platform exports starts with this, the process ones included. */
export const METRIC_PREFIX = 'agentplane_';

export function createMetricsRegistry(service: 'engine' | 'manager'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}
