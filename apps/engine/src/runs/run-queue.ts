// This replica's share of the threads' queues: runs started from the queue (background runs, and
// streaming runs under enqueue, interrupt or rollback) each hold one of the replica's run slots, which
// every agent served here shares and which are handed out fairly (fair-run-slots.ts). Without a slot
// they stay `pending` and start when one frees, here or on any replica: a pending run belongs to no
// replica, so those a dead replica's clients queued are started by the others. It looks for work when
// told (a run queued or ended, here or, through `queue:` news, on another replica) and every `pollMs`.
import { type BaseEvent, EventType } from '@ag-ui/core';
import type { TToolPolicy } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRuntime } from '../agents/agent-runtime.js';
import type { McpToolset } from '../mcp/mcp-toolset.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';
import { continueAguiThread } from '../threads/agui-threads.js';
import type { AgentTracing } from '../tracing/agent-tracing.js';
import { driveRun } from './drive-run.js';
import type { FairRunSlots, RunSlot } from './fair-run-slots.js';
import type { RunGuardrails } from './guarded-run.js';
import { meterRun } from './metered-run.js';
import { type RunStore, recordRun } from './recorded-run.js';
import { type ClaimedRun, claimNextRun, hasPendingRuns } from './run-control-records.js';

export const RUN_QUEUE_CONCURRENCY_DEFAULT = 16;
export const RUN_QUEUE_POLL_MS_DEFAULT = 1000;

const THREAD_UNREADABLE: BaseEvent = {
  type: EventType.RUN_ERROR,
  message: 'The run could not read its conversation thread, so it did not run. Try again shortly.',
  code: 'thread_unavailable',
};

export type RunQueue = {
  wake: () => void;
  /** True while the agent has runs waiting for one of the replica's slots. */
  waiting: () => boolean;
  /** Claims no more runs. The runs going on are the replica's drain's to end (active-runs.ts). */
  stop: () => Promise<void>;
};

async function executeClaimed(
  store: RunStore,
  {
    runtime,
    toolset,
    tracing,
    policy,
    guardrails,
  }: {
    runtime: AgentRuntime;
    toolset: McpToolset;
    tracing: AgentTracing;
    policy: TToolPolicy | undefined;
    guardrails: RunGuardrails | undefined;
  },
  claimed: ClaimedRun,
  logger: Logger,
) {
  const log = logger.child({ run_id: claimed.id });
  const caller =
    claimed.issuer === null || claimed.subject === null
      ? undefined
      : { issuer: claimed.issuer, subject: claimed.subject };
  // Stopped only through the replica's active runs: a cancel, or the drain at shutdown.
  const controller = new AbortController();
  const active = store.active.add(claimed.id, controller);
  // A cancel asked for between the claim and here had no run to abort yet.
  await store.active.checkCancels([claimed.id]);
  const recorded = meterRun(recordRun(store, claimed.id, log), store.metrics.runs, claimed.source);
  const thread = await continueAguiThread(store.pool, store.agentId, claimed.input, caller).catch((error: unknown) => {
    log.error({ err: error }, 'could not load the stored thread; ending the run');
    return undefined;
  });
  // Run without its conversation, the agent would answer out of context and the run's end would store
  // its input again. The run ends failed instead, its RUN_ERROR stored so that a follower sees an end.
  if (thread === undefined) {
    try {
      recorded.record(THREAD_UNREADABLE);
      await recorded.finish(false);
    } finally {
      active.release();
    }
    return;
  }
  await driveRun({
    runtime,
    toolset,
    input: thread.input,
    caller,
    recorded,
    signal: controller.signal,
    active,
    thread: { store, thread },
    send: async () => undefined,
    log,
    trace: tracing.startRun(thread.input),
    // A queued streaming run, an A2A task or an MCP call has its client following it, who is told of
    // an approval waiting; a background run has nobody.
    approvals: {
      policy,
      watched: claimed.source === 'stream' || claimed.source === 'a2a' || claimed.source === 'mcp',
      counter: store.metrics.interrupts,
    },
    guardrails,
  });
}

export function startRunQueue(options: {
  store: Omit<RunStore, 'wakeQueue'>;
  source: SnapshotSource;
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

  const start = (snapshot: AgentSnapshot, runtime: AgentRuntime, claimed: ClaimedRun, slot: RunSlot) => {
    const release = snapshot.lease();
    void executeClaimed(
      store,
      {
        runtime,
        toolset: snapshot.toolset,
        tracing: snapshot.tracing,
        policy: snapshot.config.agent.config.tools,
        guardrails: snapshot.runGuardrails,
      },
      claimed,
      log,
    )
      .catch((error: unknown) => log.error({ err: error, run_id: claimed.id }, 'the queued run failed'))
      .finally(() => {
        release();
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
    const runtime = snapshot?.runtime;
    if (stopping.signal.aborted || snapshot === undefined || runtime === undefined) return false;
    const claimed = await claimNextRun(store.pool, store.agentId, store.owner, store.leaseMs, snapshot.version);
    if (claimed === undefined) return false;
    start(snapshot, runtime, claimed, slot);
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
