// This replica's share of the threads' queues: runs started from the queue (background runs, and
// streaming runs under enqueue, interrupt or rollback) each hold one of the replica's run slots, which
// every agent served here shares and which are handed out fairly (fair-run-slots.ts). Without a slot
// they stay `pending` and start when one frees, here or on any replica: a pending run belongs to no
// replica, so those a dead replica's clients queued are started by the others. It looks for work when
// told (a run queued or ended, here or, through `queue:` news, on another replica) and every `pollMs`.
// A run pinned to an agent version (an experiment's) takes a slot as any other, and runs with that
// version's snapshot (claimed-run.ts).
import type { Logger } from '@agentplane/server-kit';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { PinnedSnapshots } from '../snapshot/pinned-snapshots.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';
import { executeClaimed, snapshotForRun } from './claimed-run.js';
import type { FairRunSlots, RunSlot } from './fair-run-slots.js';
import type { RunStore } from './recorded-run.js';
import { type ClaimedRun, claimNextRun, hasPendingRuns } from './run-control-records.js';

export const RUN_QUEUE_CONCURRENCY_DEFAULT = 16;
export const RUN_QUEUE_POLL_MS_DEFAULT = 1000;

export type RunQueue = {
  wake: () => void;
  /** True while the agent has runs waiting for one of the replica's slots. */
  waiting: () => boolean;
  /** Claims no more runs. The runs going on are the replica's drain's to end (active-runs.ts). */
  stop: () => Promise<void>;
};

export function startRunQueue(options: {
  store: Omit<RunStore, 'wakeQueue'>;
  source: SnapshotSource;
  /** The snapshots of other versions than the one served, for the runs pinned to them. */
  pinned: PinnedSnapshots;
  slots: FairRunSlots;
  pollMs: number;
  logger: Logger;
}): RunQueue {
  const { source, slots } = options;
  const store: RunStore = { ...options.store, wakeQueue: () => wake() };
  const log = options.logger.child({ component: 'run-queue' });
  const stopping = new AbortController();
  let claiming: Promise<void> | undefined;
  let again = false;
  let inLine = false;

  const start = (served: AgentSnapshot, claimed: ClaimedRun, slot: RunSlot) => {
    const snapshotOf = snapshotForRun(claimed, served, options.pinned);
    void executeClaimed(store, claimed, snapshotOf, log)
      .catch((error: unknown) => log.error({ err: error, run_id: claimed.id }, 'the queued run failed'))
      .finally(() => {
        // Released by the run, unless it failed before it started: a second release does nothing.
        snapshotOf.drop();
        slot.release();
        wake();
      });
  };

  const takeSlot = async (): Promise<RunSlot | undefined> => {
    const free = slots.tryTake(store.agentId);
    if (free !== undefined) return free;
    // Every slot is taken: the agent waits in line only with runs waiting, so that an idle agent woken
    // by the poll neither wastes a turn nor is kept loaded by the line.
    if (!(await hasPendingRuns(store.pool, store.agentId))) return undefined;
    inLine = true;
    try {
      return await slots.take(store.agentId, stopping.signal);
    } finally {
      inLine = false;
    }
  };

  // Whether a run was claimed and started in the slot; the wait for it may have been long, so the
  // config is read again.
  const claimInto = async (slot: RunSlot): Promise<boolean> => {
    const snapshot = source.current();
    if (stopping.signal.aborted || snapshot?.runtime === undefined) return false;
    const claimed = await claimNextRun(store.pool, store.agentId, store.owner, store.leaseMs, snapshot.version);
    if (claimed === undefined) return false;
    start(snapshot, claimed, slot);
    return true;
  };

  const claimWhileFree = async () => {
    while (!stopping.signal.aborted) {
      // No runs are claimed while the agent's module is not loaded: they wait for a config that loads.
      if (source.current()?.runtime === undefined) return;
      const slot = await takeSlot();
      if (slot === undefined) return;
      const started = await claimInto(slot).catch((error: unknown) => {
        slot.release();
        throw error;
      });
      if (!started) {
        slot.release();
        return;
      }
    }
  };

  function wake(): void {
    if (claiming !== undefined) {
      again = true;
      return;
    }
    claiming = (async () => {
      do {
        again = false;
        await claimWhileFree().catch((error: unknown) => log.warn({ err: error }, 'could not claim a queued run'));
      } while (again && !stopping.signal.aborted);
      claiming = undefined;
    })();
  }

  store.notifications.onQueueNews(wake);
  // Every change that may let a waiting run start is notified in its transaction (enqueue, finish,
  // cancel, sweep), and a freed slot or a newly loaded config wakes the queue here: the poll is for
  // while the LISTEN connection is down, so that a pool's thousands of idle agents cost no queries.
  const timer = setInterval(() => {
    if (!store.notifications.listening()) wake();
  }, options.pollMs);
  wake();
  return {
    wake,
    waiting: () => inLine,
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await claiming;
    },
  };
}
