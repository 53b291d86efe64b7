// Figures of the agents an engine has loaded, read when scraped: the config version each serves and its
// age, and its channel queue. Labelled by agent, for at most AGENT_LABELS_MAX agents, so that a pool of
// thousands keeps its series (and its scrape's queries) bounded; the pool's counts say how many there are.
import { Gauge, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';
import type { EngineBoot } from '../boot/engine-boot.js';
import type { ServedAgent } from '../hosting/served-agent.js';
import type { ChannelWaiting } from './channel-queue-metrics.js';

export const AGENT_LABELS_MAX = 20;

export function measureAgents(registry: Registry, boot: Pick<EngineBoot, 'loaded'>): void {
  const labelled = (): ServedAgent[] => boot.loaded().slice(0, AGENT_LABELS_MAX);
  const labelNames = ['agent_id'] as const;
  new Gauge({
    name: `${METRIC_PREFIX}agents_loaded`,
    help: 'Agents whose runtime this engine holds now (loaded at first request, unloaded when idle).',
    registers: [registry],
    collect() {
      this.set(boot.loaded().length);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}config_version`,
    help: 'The version of the agent config served, per loaded agent (absent while none is loaded).',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const served of labelled()) {
        const version = served.holder.current()?.version;
        if (version !== undefined) this.set({ agent_id: served.agentId }, version);
      }
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}config_age_seconds`,
    help: 'Seconds since the agent config last changed (applied a version, or lost its agent), per loaded agent.',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const served of labelled()) {
        const changedAt = served.holder.changedAt();
        if (changedAt !== undefined) this.set({ agent_id: served.agentId }, (Date.now() - changedAt) / 1000);
      }
    },
  });
  // A scrape collects both queue gauges at once: they share that scrape's reads.
  let reading: Promise<[string, ChannelWaiting[] | undefined][]> | undefined;
  const waiting = () => {
    reading ??= Promise.all(
      labelled().map(
        async (served) => [served.agentId, await served.readChannelQueue()] as [string, ChannelWaiting[] | undefined],
      ),
    ).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const queueGauge = (name: string, help: string, value: (row: ChannelWaiting) => number) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: [...labelNames, 'provider'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const [agentId, rows] of await waiting()) {
          for (const row of rows ?? []) this.set({ agent_id: agentId, provider: row.provider }, value(row));
        }
      },
    });
  queueGauge(
    'channel_queue_depth',
    'Channel messages waiting for an answer or being answered, per loaded agent and provider (absent when none waits, or the database did not answer in time).',
    (row) => row.depth,
  );
  queueGauge(
    'channel_oldest_pending_age_seconds',
    'Age of the oldest channel message not answered yet, per loaded agent and provider.',
    (row) => Math.max(row.oldest, 0),
  );
}
