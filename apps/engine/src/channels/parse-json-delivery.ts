// A webhook delivery's JSON body, read the same way for every provider that sends JSON: not JSON is a
// 400; a string PostgreSQL cannot store (NUL, a lone surrogate) or a nesting too deep is a 422, refused
// before anything is queued; a body that is not the provider's payload is a 400 naming what is wrong.
import { formatZodIssues, JSON_MAX_DEPTH } from '@agentplane/contracts';
import { AppError, refuseUnstorableBody } from '@agentplane/server-kit';
import type { z } from 'zod';

export function parseJsonDelivery<S extends z.ZodType>(body: Buffer, schema: S, payloadName: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('bad_request', 'The body is not valid JSON.');
  }
  refuseUnstorableBody(json, { maxDepth: JSON_MAX_DEPTH });
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new AppError('bad_request', `The body is not ${payloadName}.`, { errors: formatZodIssues(parsed.error) });
  }
  return parsed.data;
}
