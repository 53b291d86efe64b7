// What a run records of each guardrail rule that fired: a line of its run record, also shown by the
// manager's run list. The matched text is there only when the agent's observability captures content.
import { z } from 'zod';
import { GUARDRAIL_ACTIONS, GUARDRAIL_KINDS, GUARDRAIL_POSITIONS } from './guardrail-config.js';

/** The RUN_ERROR code of a run a guardrail stopped. */
export const GUARDRAIL_BLOCKED_CODE = 'guardrail_blocked';

/** Lines one run's record keeps; later ones still count in the metric and on the trace. */
export const GUARDRAIL_ACTIONS_PER_RUN_MAX = 100;

/** The most of a matched text a record keeps, when content is captured at all. */
export const GUARDRAIL_MATCHED_TEXT_MAX_LENGTH = 200;

export const ZGuardrailActionRecord = z
  .strictObject({
    guardrail_id: z.uuid(),
    guardrail: z.string(),
    rule: z.string(),
    kind: z.enum(GUARDRAIL_KINDS),
    position: z.enum(GUARDRAIL_POSITIONS),
    action: z.enum(GUARDRAIL_ACTIONS),
    /** What was found: a PII entity, `phrase`, `regex`, `injection`, `length` or `judge`. */
    found: z.string(),
    at: z.iso.datetime({ offset: true }),
    matched: z
      .string()
      .max(GUARDRAIL_MATCHED_TEXT_MAX_LENGTH)
      .optional()
      .meta({ description: "The matched text, only when the agent's observability config captures content" }),
  })
  .meta({ id: 'GuardrailActionRecord', description: 'A guardrail rule that fired during a run' });
export type TGuardrailActionRecord = z.infer<typeof ZGuardrailActionRecord>;
