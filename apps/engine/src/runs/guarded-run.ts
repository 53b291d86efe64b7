// The one way both run paths (driveRun: streamed, queued, MCP and A2A runs; runToCompletion: WhatsApp)
// start the agent: its events held to the AG-UI order, and, when the agent has guardrails, its input
// checked before the runtime starts, its toolbox guarded, and its output filtered after the order guard
// and before anything records or sends an event, so that what the client gets, what the run's log
// keeps (rejoin, replay) and what a WhatsApp reply says are the same filtered events.
import { type BaseEvent, EventType, type RunAgentInput } from '@ag-ui/core';
import type { TGuardrailActionRecord } from '@agentplane/contracts';
import type { Counter, Logger } from '@agentplane/server-kit';
import type { AgentRunRequest, AgentRuntime } from '../agents/agent-runtime.js';
import { guardRunInput } from '../guardrails/guard-run-input.js';
import { guardToolbox } from '../guardrails/guard-toolbox.js';
import { createGuardrailRecorder } from '../guardrails/guardrail-recorder.js';
import { type GuardrailRunScope, pullInGuardrailScope } from '../guardrails/guardrail-run-scope.js';
import type { AgentGuardrails } from '../guardrails/guardrail-types.js';
import { blockedError } from '../guardrails/output-filter.js';
import type { RunTrace } from '../tracing/run-trace.js';
import { guardEventOrder } from './event-order-guard.js';

/** An agent's compiled guardrails and how its runs record what fires. */
export type RunGuardrails = {
  rules: AgentGuardrails;
  /** The agent's observability `capture_content`: whether a record keeps the matched text. */
  captureContent: boolean;
  counter: Counter<'kind' | 'position' | 'action'> | undefined;
};

/** Where one run's guardrail hits go besides the counter. */
export type GuardrailRecordTargets = {
  trace: RunTrace | undefined;
  keep: ((line: TGuardrailActionRecord) => void) | undefined;
  log: Logger;
};

export type GuardedRun = {
  events: AsyncIterable<BaseEvent>;
  /** The input the runtime was given: redacted where an input rule said so (what the thread keeps). */
  input: () => RunAgentInput;
};

export function startGuardedRun(
  runtime: AgentRuntime,
  request: AgentRunRequest,
  guardrails: RunGuardrails | undefined,
  targets: GuardrailRecordTargets,
): GuardedRun {
  const { input, signal } = request;
  const { log } = targets;
  if (guardrails === undefined) {
    return { events: guardEventOrder(runtime.run(request), input, signal, log), input: () => input };
  }
  const { rules } = guardrails;
  const report = createGuardrailRecorder({ ...guardrails, ...targets });
  let given = input;
  async function* checkedRun(): AsyncGenerator<BaseEvent> {
    const checked = await guardRunInput(input, rules, report, signal);
    if ('blocked' in checked) {
      // The model is never called: the run starts and ends with the refusal.
      yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId } as BaseEvent;
      yield blockedError(checked.blocked);
      return;
    }
    given = checked.input;
    yield* runtime.run({ ...request, input: given, toolbox: guardToolbox(request.toolbox, rules, report, signal) });
  }
  const ordered = guardEventOrder(checkedRun(), input, signal, log);
  const filtered = rules.filterOutput(ordered, report);
  const scope: GuardrailRunScope = { report, countUsage: request.reportUsage };
  return { events: pullInGuardrailScope(scope, filtered), input: () => given };
}
