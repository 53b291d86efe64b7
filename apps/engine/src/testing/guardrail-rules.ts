// Guardrails as an engine config carries them, and run event streams to filter, for the guardrail tests.
import { type BaseEvent, EventType } from '@ag-ui/core';
import { type TEngineGuardrail, type TGuardrailConfigInput, ZEngineGuardrail } from '@agentplane/contracts';
import type { GuardrailHit } from '../guardrails/guardrail-types.js';

type RuleInput = TGuardrailConfigInput['rules'][number];

let guardrailCount = 0;

/** One guardrail with `rules`, defaults filled in as the contract fills them. */
export function engineGuardrail(rules: RuleInput[], name = 'Policy'): TEngineGuardrail {
  guardrailCount++;
  const id = `00000000-0000-4000-8000-${String(guardrailCount).padStart(12, '0')}`;
  return ZEngineGuardrail.parse({ id, name, rules });
}

/** A report that keeps the hits. */
export function recordHits(): { hits: GuardrailHit[]; report: (hit: GuardrailHit) => void } {
  const hits: GuardrailHit[] = [];
  return { hits, report: (hit) => hits.push(hit) };
}

export const RUN = { threadId: 'thread-1', runId: 'run-1' };

/** A run whose one text message arrives in `deltas`, and a tool call whose arguments arrive in `args`. */
export function runEvents(deltas: readonly string[], args: readonly string[] = []): BaseEvent[] {
  const events: BaseEvent[] = [{ type: EventType.RUN_STARTED, ...RUN }];
  if (deltas.length > 0) {
    events.push({ type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' } as BaseEvent);
    for (const delta of deltas)
      events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta } as BaseEvent);
    events.push({ type: EventType.TEXT_MESSAGE_END, messageId: 'm1' } as BaseEvent);
  }
  if (args.length > 0) {
    events.push({ type: EventType.TOOL_CALL_START, toolCallId: 't1', toolCallName: 'lookup' } as BaseEvent);
    for (const delta of args) events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: 't1', delta } as BaseEvent);
    events.push({ type: EventType.TOOL_CALL_END, toolCallId: 't1' } as BaseEvent);
  }
  events.push({ type: EventType.RUN_FINISHED, ...RUN });
  return events;
}

export async function* yieldAll(events: readonly BaseEvent[]): AsyncGenerator<BaseEvent> {
  for (const event of events) yield event;
}

export async function collectEvents(events: AsyncIterable<BaseEvent>): Promise<BaseEvent[]> {
  const out: BaseEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** `text` cut at `cuts` (ascending positions) into deltas. */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    if (cut > from) parts.push(text.slice(from, cut));
    from = Math.max(from, cut);
  }
  return parts;
}

/** The deltas of one stream's events (text or tool-call arguments), in order. */
export function deltasOf(events: readonly BaseEvent[], type: EventType): string[] {
  return events.filter((event) => event.type === type).map((event) => String(event.delta));
}
