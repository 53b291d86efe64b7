// A run this replica claimed from its thread's queue, from its claim to its stored end. It runs with
// the snapshot the replica serves, or, pinned to another agent version (an experiment's), with that
// version's (pinned-snapshots.ts). A run that cannot have its version, or cannot read its thread, ends
// failed with a RUN_ERROR saying why, stored so that a follower sees an end; it never runs otherwise.
import { type BaseEvent, EventType } from '@ag-ui/core';
import type { Logger } from '@agentplane/server-kit';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { LeasedSnapshot, PinnedSnapshots } from '../snapshot/pinned-snapshots.js';
import { continueAguiThread } from '../threads/agui-threads.js';
import type { ActiveRun } from './active-runs.js';
import { driveRun } from './drive-run.js';
import { meterRun } from './metered-run.js';
import { type RecordedRun, type RunStore, recordRun } from './recorded-run.js';
import type { ClaimedRun } from './run-control-records.js';

const THREAD_UNREADABLE: BaseEvent = {
  type: EventType.RUN_ERROR,
  message: 'The run could not read its conversation thread, so it did not run. Try again shortly.',
  code: 'thread_unavailable',
};

/** The RUN_ERROR of a run pinned to a version it cannot have; the message names the version. */
export const versionUnavailable = (message: string): BaseEvent =>
  ({ type: EventType.RUN_ERROR, message, code: 'version_unavailable' }) as BaseEvent;

/** How a claimed run gets its snapshot: `lease` once it starts; `drop` lets go of what was leased ahead. */
export type SnapshotForRun = { lease: () => Promise<LeasedSnapshot>; drop: () => void };

/**
 * The served snapshot, leased now, before the claim loop moves on and a newer config may retire it; or,
 * for a run pinned to another version, that version's, when the run starts.
 */
export function snapshotForRun(claimed: ClaimedRun, served: AgentSnapshot, pinned: PinnedSnapshots): SnapshotForRun {
  const version = claimed.pinned_version;
  if (version !== null && version !== served.version) {
    return { lease: () => pinned.acquire(version), drop: () => undefined };
  }
  const leased = { snapshot: served, release: served.lease() };
  return { lease: async () => leased, drop: leased.release };
}

async function endUnrun(recorded: RecordedRun, active: ActiveRun, event: BaseEvent): Promise<void> {
  try {
    recorded.record(event);
    await recorded.finish(false);
  } finally {
    active.release();
  }
}

export async function executeClaimed(
  store: RunStore,
  claimed: ClaimedRun,
  snapshotOf: SnapshotForRun,
  logger: Logger,
): Promise<void> {
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
  const leased = await snapshotOf.lease().catch((error: unknown) => error as Error);
  if (leased instanceof Error) {
    log.warn({ err: leased, pinned_version: claimed.pinned_version }, 'the run has no snapshot of its version');
    await endUnrun(recorded, active, versionUnavailable(leased.message));
    return;
  }
  const { snapshot } = leased;
  try {
    // Not so for the served snapshot, which is claimed with only while its runtime is loaded, nor for a
    // pinned one, kept only with one; said all the same rather than assumed.
    const { runtime } = snapshot;
    if (runtime === undefined) {
      const reason = describeLoadFailure(snapshot.loadFailure);
      await endUnrun(
        recorded,
        active,
        versionUnavailable(`Agent version ${snapshot.version} could not be loaded: ${reason}`),
      );
      return;
    }
    const thread = await continueAguiThread(store.pool, store.agentId, claimed.input, caller).catch(
      (error: unknown) => {
        log.error({ err: error }, 'could not load the stored thread; ending the run');
        return undefined;
      },
    );
    // Run without its conversation, the agent would answer out of context and the run's end would store
    // its input again.
    if (thread === undefined) {
      await endUnrun(recorded, active, THREAD_UNREADABLE);
      return;
    }
    await driveRun({
      runtime,
      toolset: snapshot.toolset,
      input: thread.input,
      caller,
      recorded,
      signal: controller.signal,
      active,
      thread: { store, thread },
      send: async () => undefined,
      log,
      trace: snapshot.tracing.startRun(thread.input),
      // A queued streaming run, an A2A task or an MCP call has its client following it, who is told of
      // an approval waiting; a background run, a schedule's or an experiment's has nobody.
      approvals: {
        policy: snapshot.config.agent.config.tools,
        watched: claimed.source === 'stream' || claimed.source === 'a2a' || claimed.source === 'mcp',
        counter: store.metrics.interrupts,
      },
      guardrails: snapshot.runGuardrails,
    });
  } finally {
    leased.release();
  }
}
