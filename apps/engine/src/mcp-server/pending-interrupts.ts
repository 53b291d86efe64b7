// A run that ends waiting for a human (a tool call needing approval, interrupts/tool-approval.ts, or a
// framework interrupt) ends the tool call with an error result naming what is pending, and how to
// answer it: over AG-UI (a run on the same thread with `resume`) or in the console.
//
// Why not MCP elicitation: the endpoint is stateless (mcp-routes.ts), and an elicitation is a request
// from the server to the client whose answer comes back on another HTTP request, to any replica, while
// the run that asked has ended `input_required` and waits in no process. Carrying that answer back to
// the right interrupt of the right run needs a session shared by the replicas, which the SDK's
// transport keeps in memory; an error result is honest and works with every client.

import type { AgentToolOutput } from './agent-tool.js';

export type PendingInterrupt = NonNullable<AgentToolOutput['pending_interrupts']>[number];

type Interrupt = { id?: unknown; reason?: unknown; message?: unknown; metadata?: { toolName?: unknown } };

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The interrupts of a RUN_FINISHED event's outcome; none unless it is an interrupt. */
export function readInterrupts(outcome: unknown): PendingInterrupt[] {
  const { type, interrupts } = (outcome ?? {}) as { type?: unknown; interrupts?: unknown };
  if (type !== 'interrupt' || !Array.isArray(interrupts)) return [];
  return (interrupts as Interrupt[]).map((interrupt) => {
    const tool = text(interrupt.metadata?.toolName);
    const message = text(interrupt.message);
    return {
      id: text(interrupt.id) ?? '',
      reason: text(interrupt.reason) ?? 'interrupt',
      ...(tool === undefined ? {} : { tool }),
      ...(message === undefined ? {} : { message }),
    };
  });
}

export function describePendingInterrupts(
  interrupts: PendingInterrupt[],
  ids: { thread_id: string; run_id: string },
): string {
  const pending = interrupts.map(({ id, reason, tool, message }) => {
    const what = tool === undefined ? `"${reason}"` : `approval of the tool "${tool}"`;
    return `${what} (interrupt ${id})${message === undefined ? '' : `: ${message}`}`;
  });
  return [
    `The agent is waiting for a human: ${pending.join('; ') || 'an answer'}.`,
    `Run ${ids.run_id} on thread ${ids.thread_id} ended input_required.`,
    'Approve or reject it in the console, or over AG-UI with a run on the same thread whose `resume` answers ' +
      'each interrupt id; then call this tool again with that thread_id.',
  ].join(' ');
}
