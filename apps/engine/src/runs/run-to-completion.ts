// Runs the agent without a client stream (messaging channels): the same runtime, toolbox, guardrails
// and event order guard as /agent/run (guarded-run.ts), collected into the messages and text the run
// produced (filtered as a client's stream is), and recorded as a run when given a record. A channel
// that can ask a person (approval buttons) lets the run pause on a tool approval, as a watched run
// does; elsewhere the tool policy's `unattended` decides.
import { type BaseEvent, EventType, type Message, type RunAgentInput } from '@ag-ui/core';
import type { Counter, Logger } from '@agentplane/server-kit';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import type { NewInterrupt } from '../interrupts/interrupt-records.js';
import { raisedApprovals } from '../interrupts/raised-approvals.js';
import { type ApprovalContext, runApprovals } from '../interrupts/run-approvals.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { traceRun } from '../tracing/traced-events.js';
import { createMessageCollector } from './collect-messages.js';
import { startGuardedRun } from './guarded-run.js';
import { type RecordedRun, unrecordedRun } from './recorded-run.js';

// What a run stopped before its end (its claim's lease lost, the engine stopping) ends with.
const ABORTED = 'aborted';

export type CompletedRun =
  /** `input`: what the agent was given, its messages redacted where an input guardrail said so. */
  | { finished: true; input: RunAgentInput; messages: Message[]; text: string; interrupts: NewInterrupt[] }
  | { finished: false; code: string; message: string };

export type CompletionOptions = {
  signal: AbortSignal;
  logger: Logger;
  recorded?: RecordedRun;
  interrupts?: Counter<'reason' | 'outcome'> | undefined;
  /** Told the reply's text so far after each event that may have changed it, for replies that stream. */
  onText?: (text: string) => void;
  /**
   * Where the run's thread and its interrupts are kept, when someone can be asked: the run then
   * pauses on a call needing approval (its interrupts are returned, for the caller to store with the
   * thread). Without it the policy's `unattended` decides.
   */
  pause?: ApprovalContext['stored'];
};

export async function runToCompletion(
  snapshot: AgentSnapshot,
  input: RunAgentInput,
  { signal, logger, recorded = unrecordedRun(input.runId), interrupts, onText, pause }: CompletionOptions,
): Promise<CompletedRun> {
  const { runtime, loadFailure, toolset } = snapshot;
  if (runtime === undefined) {
    await recorded.finish(false);
    return { finished: false, code: 'agent_not_loaded', message: describeLoadFailure(loadFailure) };
  }
  const collector = createMessageCollector();
  let last: BaseEvent | undefined;
  let given = input;
  try {
    const trace = snapshot.tracing.startRun(input);
    const approvals = await runApprovals(input, {
      policy: snapshot.config.agent.config.tools,
      stored: pause,
      watched: pause !== undefined,
      counter: interrupts,
      trace,
    });
    const request = { input, signal, toolbox: toolset, reportUsage: recorded.countUsage, trace, approvals };
    const started = startGuardedRun(runtime, request, snapshot.runGuardrails, {
      trace,
      keep: recorded.keepGuardrailAction,
      log: logger,
    });
    for await (const event of traceRun(started.events, trace, { signal, code: () => ABORTED })) {
      collector.observe(event);
      recorded.record(event);
      if (onText !== undefined && event.type === EventType.TEXT_MESSAGE_CONTENT) onText(collector.text());
      last = event;
    }
    given = started.input();
  } finally {
    await recorded.finish(signal.aborted);
  }
  // A run cut short (the engine stopping, the claim's lease lost) is no answer, even where the agent
  // wrapped up what it had with a RUN_FINISHED.
  if (last?.type === EventType.RUN_FINISHED && !signal.aborted) {
    const raised = raisedApprovals(last);
    return { finished: true, input: given, messages: collector.messages(), text: collector.text(), interrupts: raised };
  }
  const error = last as { code?: string; message?: string } | undefined;
  return {
    finished: false,
    code: error?.code ?? (signal.aborted ? ABORTED : 'agent_error'),
    message: error?.message ?? 'The run ended without finishing.',
  };
}
