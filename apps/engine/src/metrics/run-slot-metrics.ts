// How full the replica's run slots are (fair-run-slots.ts), read when scraped: slots all held with
// agents waiting in line is a replica short of ENGINE_RUN_QUEUE_CONCURRENCY (or of replicas).
import { Gauge, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';
import type { FairRunSlots } from '../runs/fair-run-slots.js';

export function measureRunSlots(registry: Registry, slots: FairRunSlots): void {
  new Gauge({
    name: `${METRIC_PREFIX}run_slots_held`,
    help: "Queued runs holding one of this replica's run slots (at most ENGINE_RUN_QUEUE_CONCURRENCY).",
    registers: [registry],
    collect() {
      this.set(slots.counts().held);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}run_slots_waiting`,
    help: "Agents' run queues waiting in line for one of those slots (one per agent with runs pending).",
    registers: [registry],
    collect() {
      this.set(slots.counts().waiting);
    },
  });
}
