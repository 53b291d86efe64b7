// What a run does with the calls its tool policy wants approved (agent-runtime.ts ToolApprovals): a run
// a client watches on a stored thread pauses for them; a run nobody watches (background, WhatsApp), or
// one whose interrupts could not be kept (no database), decides by the policy's `unattended`. A run
// that resumes gets the calls it answers and the thread's interrupts still open. Each outcome is
// counted (agentplane_interrupts_total) and is an event on the run's span.
import type { RunAgentInput } from '@ag-ui/core';
import { needsToolApproval, type TToolPolicy } from '@agentplane/contracts';
import type { Counter } from '@agentplane/server-kit';
import type { ResumedToolCall, ToolApprovals } from '../agents/agent-runtime.js';
import type { Queryable } from '../threads/thread-store.js';
import type { RunTrace } from '../tracing/run-trace.js';
import { type InterruptRow, resumeState } from './interrupt-records.js';
import { readApprovalAnswer, TOOL_APPROVAL } from './tool-approval.js';

export type ApprovalContext = {
  policy: TToolPolicy | undefined;
  /** Database mode: where the thread and its interrupts are (none, no run can pause). */
  stored: { db: Queryable; agentId: string; threadKey: string; ttlSeconds: number } | undefined;
  /** Whether a client follows the run (a streaming run), so someone can answer its interrupts. */
  watched: boolean;
  counter: Counter<'reason' | 'outcome'> | undefined;
  trace: RunTrace | undefined;
};

function toResumed(row: InterruptRow): ResumedToolCall {
  const answer = readApprovalAnswer({
    interruptId: row.id,
    status: row.answer?.status ?? 'cancelled',
    payload: row.answer?.payload,
  });
  const approved = 'approved' in answer && answer.approved ? (answer.editedArgs ?? row.arguments ?? {}) : undefined;
  return {
    interruptId: row.id,
    toolCallId: row.tool_call_id ?? '',
    toolName: row.tool_name ?? '',
    approvedArguments: approved,
  };
}

export async function runApprovals(input: RunAgentInput, context: ApprovalContext): Promise<ToolApprovals | undefined> {
  const { policy, stored } = context;
  const resuming = (input.resume ?? []).length > 0 && stored !== undefined;
  if (!resuming && (policy?.approval ?? []).length === 0) return undefined;
  const rows = resuming ? await resumeState(stored.db, stored.agentId, stored.threadKey, input.runId) : [];
  const ttlMs = (stored?.ttlSeconds ?? 0) * 1000;
  return {
    needs: (toolName) => needsToolApproval(policy, toolName),
    mode: context.watched && stored !== undefined ? 'pause' : (policy?.unattended ?? 'reject'),
    expiresAt: () => new Date(Date.now() + ttlMs),
    resumed: rows.filter((row) => row.resumed).map(toResumed),
    open: rows.filter((row) => !row.resumed).map((row) => row.interrupt),
    report: (outcome, call) => {
      context.counter?.inc({ reason: TOOL_APPROVAL, outcome });
      context.trace?.addEvent('agentplane.interrupt', {
        'agentplane.interrupt.reason': TOOL_APPROVAL,
        'agentplane.interrupt.outcome': outcome,
        'gen_ai.tool.name': call.toolName,
        'gen_ai.tool.call.id': call.toolCallId,
      });
    },
  };
}
