// One run of the agent from its first event to its stored end, shared by the streaming /agent/run and
// the runs this replica starts from a thread's queue: its events numbered, logged and sent on; a run
// stopped by a requested cancel ends with that cancel's RUN_ERROR, and one stopped by its client
// leaving with a cancel's, so a rejoin or a follower always sees an end; the thread keeps what the run
// produced when it finished or was interrupted, and nothing when it was cancelled or rolled back.
import { type BaseEvent, EventType, type RunAgentInput } from '@ag-ui/core';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRuntime } from '../agents/agent-runtime.js';
import type { McpToolset } from '../mcp/mcp-toolset.js';
import { type AguiThread, storeAguiRun } from '../threads/agui-threads.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import { createStateTracker } from '../threads/thread-state.js';
import type { RunTrace } from '../tracing/run-trace.js';
import { traceRun } from '../tracing/traced-events.js';
import type { ActiveRun } from './active-runs.js';
import { createMessageCollector } from './collect-messages.js';
import { guardEventOrder } from './event-order-guard.js';
import type { RecordedRun, RunStore, StoredWork } from './recorded-run.js';
import { cancellationEvent } from './run-control-records.js';

export type DrivenRun = {
  runtime: AgentRuntime;
  toolset: McpToolset;
  input: RunAgentInput;
  caller: ThreadCaller | undefined;
  recorded: RecordedRun;
  /** Aborted by the client leaving or by a requested cancel (`active` says which). */
  signal: AbortSignal;
  active: ActiveRun | undefined;
  /** Where a stored thread is continued: the store and the thread. */
  thread: { store: RunStore; thread: AguiThread } | undefined;
  send: (event: BaseEvent, id: string, data: string) => Promise<void>;
  log: Logger;
  /** The run's trace, when the agent traces its runs. */
  trace: RunTrace | undefined;
};

export async function driveRun(run: DrivenRun): Promise<void> {
  const { input, signal, recorded, log } = run;
  const collector = createMessageCollector();
  const state = createStateTracker(input.state);
  let finished = false;
  let ended = false;
  let storeThread: StoredWork | undefined;
  // A requested cancel or a shutdown says how the run stopped; with neither, its client left.
  const stopReason = () => run.active?.cancelled() ?? 'cancel';
  const emit = async (event: BaseEvent) => {
    const { id, data } = recorded.record(event);
    await run.send(event, id, data);
  };
  try {
    const request = {
      input,
      signal,
      toolbox: run.toolset,
      caller: run.caller,
      reportUsage: recorded.countUsage,
      trace: run.trace,
    };
    const guarded = guardEventOrder(run.runtime.run(request), input, signal, log);
    const events = traceRun(guarded, run.trace, { signal, code: () => cancellationEvent(stopReason()).code });
    for await (const event of events) {
      collector.observe(event);
      state.observe(event);
      finished = event.type === EventType.RUN_FINISHED;
      ended = finished || event.type === EventType.RUN_ERROR;
      await emit(event);
      if (signal.aborted) break;
    }
    if (!ended && signal.aborted) await emit(cancellationEvent(stopReason()));
    // Stored with the run's final status (recorded-run.ts), so the thread's next run sees this one.
    // RUN_FINISHED is already sent, so a storage failure can only be logged.
    if (run.thread !== undefined && (finished || run.active?.cancelled() === 'interrupt')) {
      const { store, thread } = run.thread;
      const produced = { produced: collector.messages(), state: state.state() };
      storeThread = (db) => storeAguiRun(db, store.agentId, thread, produced);
    }
  } finally {
    await recorded.finish(signal.aborted, run.active?.cancelled(), storeThread);
    run.active?.release();
  }
}
