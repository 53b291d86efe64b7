// Figures of the agents an engine has loaded, read when scraped: the config version each serves and its
// age, and its WhatsApp queue. Labelled by agent, for at most AGENT_LABELS_MAX agents, so that a pool of
// thousands keeps its series (and its scrape's queries) bounded; the pool's counts say how many there are.
import { Gauge, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';
import type { EngineBoot } from '../boot/engine-boot.js';
import type { ServedAgent } from '../hosting/served-agent.js';
import type { WhatsAppWaiting } from './whatsapp-queue-metrics.js';

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
  let reading: Promise<[string, WhatsAppWaiting | undefined][]> | undefined;
  const waiting = () => {
    reading ??= Promise.all(
      labelled().map(
        async (served) => [served.agentId, await served.readWhatsAppQueue()] as [string, WhatsAppWaiting | undefined],
      ),
    ).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  new Gauge({
    name: `${METRIC_PREFIX}whatsapp_queue_depth`,
    help: 'WhatsApp messages waiting for an answer or being answered, per loaded agent (absent when the database did not answer in time).',
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [agentId, row] of await waiting()) if (row !== undefined) this.set({ agent_id: agentId }, row.depth);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}whatsapp_oldest_pending_age_seconds`,
    help: 'Age of the oldest WhatsApp message not answered yet (0 when none waits), per loaded agent.',
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [agentId, row] of await waiting()) {
        if (row !== undefined) this.set({ agent_id: agentId }, Math.max(row.oldest ?? 0, 0));
      }
    },
  });
}
