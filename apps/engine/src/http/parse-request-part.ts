// A path or query string checked against its schema: a part of the URL that does not fit is the
// client's mistake, a 400 naming the field, never a query on garbage.
import { formatZodIssues } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { z } from 'zod';

export function parseRequestPart<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('bad_request', `The ${what} is invalid.`, { errors: formatZodIssues(result.error) });
  }
  return result.data;
}
