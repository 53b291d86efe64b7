import { type BaseEvent, EventType, type RunFinishedEvent } from '@ag-ui/core';
import type { NewInterrupt } from './interrupt-records.js';
import { TOOL_APPROVAL } from './tool-approval.js';

/** The tool approvals a run ended waiting for, to keep with its thread (the LLM agent's interrupts). */
export function raisedApprovals(event: BaseEvent | undefined): NewInterrupt[] {
  if (event?.type !== EventType.RUN_FINISHED) return [];
  const { outcome } = event as RunFinishedEvent;
  if (outcome?.type !== 'interrupt') return [];
  return outcome.interrupts
    .filter((interrupt) => interrupt.reason === TOOL_APPROVAL)
    .map((interrupt) => ({
      interrupt,
      toolCallId: interrupt.toolCallId,
      toolName: typeof interrupt.metadata?.toolName === 'string' ? interrupt.metadata.toolName : undefined,
      arguments: interrupt.metadata?.arguments,
    }));
}
