// The one error body of the Manager API (RFC 9457 problem details).
import { z } from 'zod';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ZProblemFieldError = z.object({
  path: z.string().meta({ description: 'Dot/bracket path of the offending field, e.g. integration.config.apiVersion' }),
  message: z.string(),
});
export type TProblemFieldError = z.infer<typeof ZProblemFieldError>;

// Not strict: RFC 9457 lets a problem carry extension members, and clients must ignore ones they do not know.
export const ZProblem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int().min(100).max(599),
    detail: z.string().optional(),
    instance: z.string().optional(),
    request_id: z.string().optional(),
    errors: z.array(ZProblemFieldError).optional(),
  })
  .meta({ id: 'Problem', description: 'Problem details, served as application/problem+json' });
export type TProblem = z.infer<typeof ZProblem>;
