// The AG-UI interrupt of a tool call that waits for a human (reason `tool_approval`), and how an answer
// to it reads. The answer is a resume entry: status `cancelled` rejects the call; `resolved` approves
// it, with the model's arguments or with `payload.editedArgs`, unless `payload.approved` is false.
import type { Interrupt, ResumeEntry } from '@ag-ui/core';

export const TOOL_APPROVAL = 'tool_approval';

/** How much of the arguments the interrupt's message quotes; the metadata carries them whole. */
const MESSAGE_ARGUMENTS_MAX = 500;

export type ApprovalCall = {
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  /** The tool's input schema: what edited arguments must satisfy. */
  parameters: Record<string, unknown> | undefined;
};

export function approvalResponseSchema(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    type: 'object',
    description:
      'Resume with status "resolved" to approve the call (with editedArgs, to call it with those arguments instead), ' +
      'or "cancelled" to reject it',
    properties: {
      approved: { type: 'boolean', description: 'false rejects the call, as status "cancelled" does' },
      editedArgs: {
        ...(parameters ?? { type: 'object' }),
        description: "Arguments to call the tool with instead of the model's",
      },
    },
    additionalProperties: false,
  };
}

export function toolApprovalInterrupt(id: string, call: ApprovalCall, expiresAt: Date): Interrupt {
  const args = JSON.stringify(call.arguments);
  const quoted = args.length > MESSAGE_ARGUMENTS_MAX ? `${args.slice(0, MESSAGE_ARGUMENTS_MAX)}…` : args;
  return {
    id,
    reason: TOOL_APPROVAL,
    message: `The agent wants to call the tool "${call.toolName}" with ${quoted}. Approve?`,
    toolCallId: call.toolCallId,
    responseSchema: approvalResponseSchema(call.parameters),
    expiresAt: expiresAt.toISOString(),
    metadata: { toolName: call.toolName, arguments: call.arguments },
  };
}

export type ApprovalAnswer = { approved: false } | { approved: true; editedArgs?: Record<string, unknown> };

/** Reads a resume entry as an answer to a tool approval, or says what is wrong with its payload. */
export function readApprovalAnswer(entry: ResumeEntry): ApprovalAnswer | { invalid: string } {
  if (entry.status === 'cancelled') return { approved: false };
  const payload: unknown = entry.payload ?? {};
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { invalid: 'must be an object: {approved?, editedArgs?}' };
  }
  const { approved, editedArgs, ...rest } = payload as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) return { invalid: `has an unknown field "${unknown}"` };
  if (approved !== undefined && typeof approved !== 'boolean') return { invalid: 'approved must be a boolean' };
  if (approved === false) return { approved: false };
  if (editedArgs === undefined) return { approved: true };
  if (typeof editedArgs !== 'object' || editedArgs === null || Array.isArray(editedArgs)) {
    return { invalid: 'editedArgs must be an object' };
  }
  return { approved: true, editedArgs: editedArgs as Record<string, unknown> };
}
