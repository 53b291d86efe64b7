import { Gauge, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';
import type { ConfigHolder } from '../config-source/config-holder.js';

/** The config version served and how long ago it changed, read from the holder when scraped. */
export function measureConfig(registry: Registry, holder: ConfigHolder): void {
  new Gauge({
    name: `${METRIC_PREFIX}config_version`,
    help: 'The version of the agent config this engine serves (absent while none is loaded).',
    registers: [registry],
    collect() {
      this.reset();
      const version = holder.current()?.version;
      if (version !== undefined) this.set(version);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}config_age_seconds`,
    help: 'Seconds since this engine last changed its config (applied a version, or lost its agent).',
    registers: [registry],
    collect() {
      this.reset();
      const changedAt = holder.changedAt();
      if (changedAt !== undefined) this.set((Date.now() - changedAt) / 1000);
    },
  });
}
