// How a run a guardrail stopped ends: RUN_ERROR `guardrail_blocked`, naming the guardrail and the rule,
// never what matched (the matched text is what must not reach the client).
import { type BaseEvent, EventType } from '@ag-ui/core';
import { GUARDRAIL_BLOCKED_CODE } from '@agentplane/contracts';
import type { GuardrailHit } from './guardrail-types.js';

export function guardrailBlockedMessage(hit: GuardrailHit): string {
  return `Blocked by guardrail "${hit.guardrail.name}" (rule "${hit.rule.name}").`;
}

/** The RUN_ERROR a blocked input or output ends its run with. */
export function guardrailBlockedEvent(hit: GuardrailHit): BaseEvent {
  return {
    type: EventType.RUN_ERROR,
    message: guardrailBlockedMessage(hit),
    code: GUARDRAIL_BLOCKED_CODE,
  } as BaseEvent;
}
