// A webhook body read as JSON of the provider's shape. Signed or not, a value PostgreSQL cannot store (a
// NUL, a lone surrogate, nesting past the limit) is a 422 before anything is queued; malformed JSON or
// another shape is a 400.
import { formatZodIssues, JSON_MAX_DEPTH } from '@agentplane/contracts';
import { AppError, refuseUnstorableBody } from '@agentplane/server-kit';
import type { z } from 'zod';

/** `what` names the expected payload in the refusal: "a Discord interaction". */
export function readJsonDelivery<S extends z.ZodType>(rawBody: Buffer, schema: S, what: string): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new AppError('bad_request', 'The body is not valid JSON.');
  }
  refuseUnstorableBody(json, { maxDepth: JSON_MAX_DEPTH });
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new AppError('bad_request', `The body is not ${what}.`, { errors: formatZodIssues(parsed.error) });
  }
  return parsed.data;
}
