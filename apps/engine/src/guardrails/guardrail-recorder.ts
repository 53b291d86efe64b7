// What a run keeps of every guardrail rule that fired: an event on the run's span, the engine's
// counter, and a line of the run's record (written with the run's end, not one round trip per hit).
// The matched text is personal data as much as a prompt is: it goes on the span and in the record
// only when the agent's observability config captures content, and never into a log line.
import {
  GUARDRAIL_ACTIONS_PER_RUN_MAX,
  GUARDRAIL_MATCHED_TEXT_MAX_LENGTH,
  type TGuardrailActionRecord,
  toStorableText,
} from '@agentplane/contracts';
import type { Counter, Logger } from '@agentplane/server-kit';
import type { RunTrace } from '../tracing/run-trace.js';
import type { GuardrailHit, ReportGuardrailHit } from './guardrail-types.js';

/** The span event's name on the run's `invoke_agent` span. */
export const GUARDRAIL_SPAN_EVENT = 'guardrail';

export type GuardrailRecorderOptions = {
  /** The agent's observability `capture_content`: whether the matched text is kept. */
  captureContent: boolean;
  counter: Counter<'kind' | 'position' | 'action'> | undefined;
  /** The run's trace, when the agent traces its runs. */
  trace: RunTrace | undefined;
  /** Takes the run record's lines: only the first GUARDRAIL_ACTIONS_PER_RUN_MAX of a run reach it. */
  keep: ((line: TGuardrailActionRecord) => void) | undefined;
  log: Logger;
};

/**
 * A matched text cut to what a record keeps, without splitting a surrogate pair at the cut, and
 * storable (a tool's result may hold a NUL, which jsonb refuses).
 */
export function cutMatchedText(text: string): string {
  const cut = text.slice(0, GUARDRAIL_MATCHED_TEXT_MAX_LENGTH);
  return toStorableText(cut.length < text.length && /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut);
}

function describeHit(hit: GuardrailHit) {
  return {
    guardrail_id: hit.guardrail.id,
    guardrail: hit.guardrail.name,
    rule: hit.rule.name,
    kind: hit.rule.kind,
    position: hit.rule.position,
    action: hit.rule.action,
    found: hit.found,
  };
}

/** The report of one run's guardrail hits. */
export function createGuardrailRecorder(options: GuardrailRecorderOptions): ReportGuardrailHit {
  const { captureContent, counter, trace, keep, log } = options;
  let kept = 0;
  return (hit) => {
    const described = describeHit(hit);
    const matched = captureContent ? cutMatchedText(hit.matched) : undefined;
    counter?.inc({ kind: hit.rule.kind, position: hit.rule.position, action: hit.rule.action });
    trace?.addEvent(GUARDRAIL_SPAN_EVENT, {
      'agentplane.guardrail.id': described.guardrail_id,
      'agentplane.guardrail.name': described.guardrail,
      'agentplane.guardrail.rule': described.rule,
      'agentplane.guardrail.kind': described.kind,
      'agentplane.guardrail.position': described.position,
      'agentplane.guardrail.action': described.action,
      'agentplane.guardrail.found': described.found,
      ...(matched === undefined ? {} : { 'agentplane.guardrail.matched': matched }),
    });
    if (keep !== undefined && kept < GUARDRAIL_ACTIONS_PER_RUN_MAX) {
      kept++;
      keep({ ...described, at: new Date().toISOString(), ...(matched === undefined ? {} : { matched }) });
    }
    // A block changes what the client sees, so it is worth a line; redactions and logs are counted only.
    if (hit.rule.action === 'block') log.info(described, 'a guardrail blocked');
    else log.debug(described, 'a guardrail rule fired');
  };
}
