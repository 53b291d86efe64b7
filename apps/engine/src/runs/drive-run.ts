// One run of the agent from its first event to its stored end, shared by the streaming /agent/run and
// the runs this replica starts from a thread's queue: its events guarded (guarded-run.ts: the AG-UI
// order, and the agent's guardrails), numbered, logged and sent on; a run
// stopped by a requested cancel ends with that cancel's RUN_ERROR, and one stopped by its client
// leaving with a cancel's, so a rejoin or a follower always sees an end; the thread keeps what the run
// produced when it finished or was interrupted, and nothing when it was cancelled or rolled back.
import { type BaseEvent, EventType, type RunAgentInput } from '@ag-ui/core';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRuntime } from '../agents/agent-runtime.js';
import { reportFrameworkInterrupts } from '../interrupts/framework-interrupts.js';
import { storeInterrupts } from '../interrupts/interrupt-records.js';
import { raisedApprovals } from '../interrupts/raised-approvals.js';
import { type ApprovalContext, runApprovals } from '../interrupts/run-approvals.js';
import type { McpToolset } from '../mcp/mcp-toolset.js';
import { type AguiThread, storeAguiRun } from '../threads/agui-threads.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import { createStateTracker } from '../threads/thread-state.js';
import type { RunTrace } from '../tracing/run-trace.js';
import { traceRun } from '../tracing/traced-events.js';
import type { ActiveRun } from './active-runs.js';
import { createMessageCollector } from './collect-messages.js';
import { type RunGuardrails, startGuardedRun } from './guarded-run.js';
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
  /** The tool policy and who follows the run: what its calls needing approval do (interrupts/run-approvals.ts). */
  approvals: Pick<ApprovalContext, 'policy' | 'watched' | 'counter'>;
  /** The agent's guardrails (its config snapshot's), when it has any. */
  guardrails: RunGuardrails | undefined;
};

export async function driveRun(run: DrivenRun): Promise<void> {
  const { input, signal, recorded, log } = run;
  const collector = createMessageCollector();
  const state = createStateTracker(input.state);
  let finished = false;
  let ended = false;
  let storeThread: StoredWork | undefined;
  let last: BaseEvent | undefined;
  // A requested cancel or a shutdown says how the run stopped; with neither, its client left.
  const stopReason = () => run.active?.cancelled() ?? 'cancel';
  const emit = async (event: BaseEvent) => {
    const { id, data } = recorded.record(event);
    await run.send(event, id, data);
  };
  try {
    const stored =
      run.thread === undefined
        ? undefined
        : {
            db: run.thread.store.pool,
            agentId: run.thread.store.agentId,
            threadKey: run.thread.thread.key,
            ttlSeconds: run.thread.store.interruptTtlSeconds,
          };
    const request = {
      input,
      signal,
      // The run's own id goes with its tool calls: a call to another agent names the run that makes it.
      toolbox: {
        tools: run.toolset.tools,
        call: (name: string, args: Record<string, unknown>, callSignal: AbortSignal) =>
          run.toolset.call(name, args, callSignal, { runId: input.runId }),
      },
      caller: run.caller,
      reportUsage: recorded.countUsage,
      trace: run.trace,
      approvals: await runApprovals(input, { ...run.approvals, stored, trace: run.trace }),
    };
    const started = startGuardedRun(run.runtime, request, run.guardrails, {
      trace: run.trace,
      keep: recorded.keepGuardrailAction,
      log,
    });
    const events = traceRun(started.events, run.trace, { signal, code: () => cancellationEvent(stopReason()).code });
    for await (const event of events) {
      collector.observe(event);
      state.observe(event);
      last = event;
      finished = event.type === EventType.RUN_FINISHED;
      ended = finished || event.type === EventType.RUN_ERROR;
      await emit(event);
      if (signal.aborted) break;
    }
    if (!ended && signal.aborted) await emit(cancellationEvent(stopReason()));
    reportFrameworkInterrupts(last, run.approvals.counter, run.trace);
    // Stored with the run's final status (recorded-run.ts), so the thread's next run sees this one.
    // RUN_FINISHED is already sent, so a storage failure can only be logged.
    if (run.thread !== undefined && (finished || run.active?.cancelled() === 'interrupt')) {
      const { store } = run.thread;
      // The thread keeps the input as the model got it: redacted where a guardrail said so.
      const thread = { ...run.thread.thread, input: started.input() };
      const produced = { produced: collector.messages(), state: state.state() };
      const raised = raisedApprovals(last);
      storeThread = async (db) => {
        await storeAguiRun(db, store.agentId, thread, produced);
        if (raised.length > 0) await storeInterrupts(db, store.agentId, thread.key, input.runId, raised);
      };
    }
  } finally {
    await recorded.finish(signal.aborted, run.active?.cancelled(), storeThread);
    run.active?.release();
  }
}
