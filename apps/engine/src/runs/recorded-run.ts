// A run as a record (database mode): its agent_runs row, its numbered events in the log, and its
// final status from how it ended. Without a database the events are numbered all the same (the SSE
// ids carry the seq) and nothing is stored.
import { type BaseEvent, EventType, type RunFinishedEvent } from '@ag-ui/core';
import type { TEngineBudgets, TGuardrailActionRecord } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { TokenUsage } from '../agents/agent-runtime.js';
import { addRunSpend, type SpendScopes } from '../budgets/budget-spend.js';
import type { AgentDb } from '../database/agent-db.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import { type Queryable, withTransaction } from '../threads/thread-store.js';
import type { ActiveRuns } from './active-runs.js';
import { sseData } from './event-stream.js';
import type { PendingRunCaps } from './pending-run-caps.js';
import { createEventLog, NO_EVENT_LOG } from './run-event-log.js';
import type { RunFollowReads } from './run-follow-reads.js';
import type { RunNotifications } from './run-notifications.js';
import {
  createRun,
  type FinalStatus,
  finishRun,
  type RunConflict,
  type RunSource,
  type StopReason,
} from './run-records.js';
import { createUsageMeter } from './run-usage.js';

/** What runs need of the database, one per replica. */
export type RunStore = {
  pool: AgentDb;
  agentId: string;
  /** This replica, as the owner of the runs it runs. */
  owner: string;
  leaseMs: number;
  /** How many runs may wait per thread and per caller (pending-run-caps.ts). */
  pendingCaps: PendingRunCaps;
  /** Whether runs' events are stored (ENGINE_RUN_EVENT_LOG); off, nothing can follow or replay a run. */
  eventLog: boolean;
  /** How long a run's interrupts can be answered (ENGINE_INTERRUPT_TTL_SECONDS). */
  interruptTtlSeconds: number;
  notifications: RunNotifications;
  /** What followers of runs read after each wake-up, shared between them (run-follow-reads.ts). */
  follows: RunFollowReads;
  /** The runs this replica executes, to abort on a cancel asked for on any replica. */
  active: ActiveRuns;
  /** Tells this replica's run queue (run-queue.ts) that a run may be ready to start. */
  wakeQueue: () => void;
  metrics: EngineMetrics;
  /** Where a run's usage is counted for budgets: from the config applied when the run ends. */
  spendTarget: () => SpendTarget | undefined;
};

export type SpendTarget = { scopes: SpendScopes; price: TEngineBudgets['price'] };

export type RecordedRun = {
  /** Numbers the event and queues it for storage; returns its SSE id and `data:` payload. */
  record: (event: BaseEvent) => { id: string; data: string };
  /** Counts a model call's tokens into the run's usage (the runtime's reportUsage). */
  countUsage: (usage: TokenUsage) => void;
  /** Keeps a guardrail rule that fired as a line of the run's record, stored with its end. */
  keepGuardrailAction: (line: TGuardrailActionRecord) => void;
  /**
   * Stores the remaining events, `alongside` (the run's thread append) and the run's final status from
   * its last event, or from the cancel that stopped it.
   */
  finish: (aborted: boolean, stopped?: StopReason, alongside?: StoredWork) => Promise<void>;
};

/** A write that belongs to the run's end, made through the connection it is given. */
export type StoredWork = (db: Queryable) => Promise<void>;

export type RunStart = {
  runId: string;
  threadId: string;
  threadKey: string;
  caller: ThreadCaller | undefined;
  source: RunSource;
  /** The version of the config that runs it (run-records.ts). */
  configVersion: number;
  /** A messaging channel's queue vouches that no other run of the thread is alive (run-records.ts). */
  supersede?: boolean;
};

const STOP_OUTCOMES: Record<StopReason, { status: FinalStatus; error: string }> = {
  cancel: { status: 'cancelled', error: 'cancelled' },
  interrupt: { status: 'interrupted', error: 'interrupted by a newer run' },
  rollback: { status: 'cancelled', error: 'rolled back' },
  shutdown: { status: 'failed', error: 'engine stopped' },
};

export function outcomeOf(
  last: BaseEvent | undefined,
  aborted: boolean,
  stopped: StopReason | undefined,
): { status: FinalStatus; error?: string; errorCode?: string } {
  // A run that stopped for a human's answer finished its part, and waits: its interrupts say for what.
  if (last?.type === EventType.RUN_FINISHED) {
    return { status: (last as RunFinishedEvent).outcome?.type === 'interrupt' ? 'input_required' : 'succeeded' };
  }
  if (stopped !== undefined) return STOP_OUTCOMES[stopped];
  if (aborted) return { status: 'cancelled' };
  // The RUN_ERROR's message is what the client was shown already; nothing more is kept.
  const { message, code } = (last ?? {}) as { message?: unknown; code?: unknown };
  return {
    status: 'failed',
    error: typeof message === 'string' ? message : 'The run ended without finishing.',
    // The precise signal of why (BUDGET_EXCEEDED, GUARDRAIL_BLOCKED), which webhooks tell subscribers.
    ...(typeof code === 'string' ? { errorCode: code } : {}),
  };
}

/**
 * A run numbered but not stored: only without a database (a config file alone), where there are no
 * records, budgets or threads. With one, a run whose row cannot be created does not run at all.
 */
export function unrecordedRun(runId: string): RecordedRun {
  let seq = 0;
  return {
    record: (event) => ({ id: `${runId}:${++seq}`, data: sseData(event) }),
    countUsage: () => undefined,
    keepGuardrailAction: () => undefined,
    finish: async () => undefined,
  };
}

/** Creates the run's row, or says why it cannot run now. */
export async function startRecordedRun(
  store: RunStore,
  start: RunStart,
  log: Logger,
): Promise<RecordedRun | RunConflict> {
  const { pool, agentId, owner, leaseMs } = store;
  const run = { agentId, runId: start.runId, owner };
  const conflict = await createRun(
    pool,
    {
      ...run,
      threadId: start.threadId,
      threadKey: start.threadKey,
      caller: start.caller,
      source: start.source,
      configVersion: start.configVersion,
      leaseMs,
    },
    { supersede: start.supersede ?? false },
  );
  if (conflict !== undefined) return conflict;
  return recordRun(store, start.runId, log);
}

/** The record of a run whose row this replica already holds as running (created, or claimed from its queue). */
export function recordRun(
  store: Pick<RunStore, 'pool' | 'agentId' | 'owner' | 'eventLog' | 'spendTarget'>,
  runId: string,
  log: Logger,
): RecordedRun {
  const { pool, agentId, owner } = store;
  const run = { agentId, runId, owner };
  const events = store.eventLog ? createEventLog(pool, agentId, runId, log) : NO_EVENT_LOG;
  let seq = 0;
  let last: BaseEvent | undefined;
  const usage = createUsageMeter();
  const guardrailActions: TGuardrailActionRecord[] = [];
  return {
    countUsage: usage.add,
    keepGuardrailAction: (line) => {
      guardrailActions.push(line);
    },
    record: (event) => {
      last = event;
      const data = sseData(event);
      events.append(++seq, data);
      return { id: `${runId}:${seq}`, data };
    },
    // The thread's append, then the last events with the final status, commit together: one commit
    // instead of three, and a follower that sees the final status has every event to read, as the
    // thread's next run has this run's messages.
    finish: async (aborted, stopped, alongside) => {
      const tail = await events.drain();
      const outcome = { ...outcomeOf(last, aborted, stopped), usage: usage.total(), guardrailActions };
      const spent = outcome.usage;
      const target = spent === undefined ? undefined : store.spendTarget();
      const parts: { work: StoredWork; failure: string }[] = [
        ...(alongside === undefined ? [] : [{ work: alongside, failure: 'could not store the run in its thread' }]),
        { work: (db) => finishRun(db, run, outcome, tail), failure: 'could not record how the run ended' },
        // In the same transaction as the run's usage: the budgets count exactly what agent_runs says.
        ...(spent === undefined || target === undefined
          ? []
          : [
              {
                work: (db: Queryable) => addRunSpend(db, target.scopes, spent, target.price),
                failure: 'could not count the run against its budgets',
              },
            ]),
      ];
      await withTransaction(pool, async (client) => {
        for (const part of parts) await part.work(client);
      }).catch(async (error: unknown) => {
        // One part failing must not keep the others from being stored: they go one by one, in order.
        log.warn({ err: error }, 'could not store the end of the run in one transaction; storing its parts apart');
        for (const part of parts) await part.work(pool).catch((err: unknown) => log.error({ err }, part.failure));
      });
    },
  };
}
