// Runs the agent without a client stream (messaging webhooks): the same runtime, toolbox, guardrails
// and event order guard as /agent/run (guarded-run.ts), collected into the messages and text the run
// produced (filtered as a client's stream is), and recorded as a run when given a record.
import { type BaseEvent, EventType, type Message, type RunAgentInput } from '@ag-ui/core';
import type { Counter, Logger } from '@agentplane/server-kit';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { runApprovals } from '../interrupts/run-approvals.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { traceRun } from '../tracing/traced-events.js';
import { createMessageCollector } from './collect-messages.js';
import { startGuardedRun } from './guarded-run.js';
import { type RecordedRun, unrecordedRun } from './recorded-run.js';

// What a run stopped before its end (its claim's lease lost, the engine stopping) ends with.
const ABORTED = 'aborted';

export type CompletedRun =
  /** `input`: what the agent was given, its messages redacted where an input guardrail said so. */
  | { finished: true; input: RunAgentInput; messages: Message[]; text: string }
  | { finished: false; code: string; message: string };

export type CompletionOptions = {
  signal: AbortSignal;
  logger: Logger;
  recorded?: RecordedRun;
  interrupts?: Counter<'reason' | 'outcome'> | undefined;
  /** Told the reply's text so far after each event that may have changed it, for replies that stream. */
  onText?: (text: string) => void;
};

export async function runToCompletion(
  snapshot: AgentSnapshot,
  input: RunAgentInput,
  { signal, logger, recorded = unrecordedRun(input.runId), interrupts, onText }: CompletionOptions,
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
    // Nobody watches these runs: a call needing approval is decided by the policy's `unattended`.
    const approvals = await runApprovals(input, {
      policy: snapshot.config.agent.config.tools,
      stored: undefined,
      watched: false,
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
  if (last?.type === EventType.RUN_FINISHED) {
    return { finished: true, input: given, messages: collector.messages(), text: collector.text() };
  }
  const error = last as { code?: string; message?: string } | undefined;
  return {
    finished: false,
    code: error?.code ?? (signal.aborted ? ABORTED : 'agent_error'),
    message: error?.message ?? 'The run ended without finishing.',
  };
}
