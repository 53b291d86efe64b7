// Interrupts an agent raises itself (a LangGraph graph's interrupt(), a custom agent's outcome), as
// opposed to the tool approvals the engine raises and reports where it decides them (run-approvals.ts):
// counted in agentplane_interrupts_total and an event on the run's span, like those.
import { type BaseEvent, EventType, type RunFinishedEvent } from '@ag-ui/core';
import type { Counter } from '@agentplane/server-kit';
import type { RunTrace } from '../tracing/run-trace.js';
import { TOOL_APPROVAL } from './tool-approval.js';

/** The metric's reason label for an agent's own reason: a known one as it is, any other as `other`. */
const REASONS = new Set(['graph_interrupt']);

export function reportFrameworkInterrupts(
  last: BaseEvent | undefined,
  counter: Counter<'reason' | 'outcome'> | undefined,
  trace: RunTrace | undefined,
): void {
  if (last?.type !== EventType.RUN_FINISHED) return;
  const { outcome } = last as RunFinishedEvent;
  if (outcome?.type !== 'interrupt') return;
  for (const interrupt of outcome.interrupts) {
    if (interrupt.reason === TOOL_APPROVAL) continue;
    // A custom agent names its reasons freely: the label stays bounded.
    const reason = REASONS.has(interrupt.reason) ? interrupt.reason : 'other';
    counter?.inc({ reason, outcome: 'raised' });
    trace?.addEvent('agentplane.interrupt', {
      'agentplane.interrupt.reason': reason,
      'agentplane.interrupt.outcome': 'raised',
    });
  }
}
