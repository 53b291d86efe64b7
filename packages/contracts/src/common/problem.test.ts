import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ZProblem } from './problem.js';

describe('ZProblem', () => {
  it('accepts a validation problem with field errors', () => {
    const problem = {
      type: 'about:blank',
      title: 'Unprocessable Content',
      status: 422,
      detail: 'The body is invalid',
      errors: [{ path: 'integration.config.apiVersion', message: 'bad' }],
      request_id: 'req-1',
      instance: '/api/v1/integrations/',
    };
    expect(ZProblem.parse(problem)).toStrictEqual(problem);
  });

  it('requires type, title and status', () => {
    const result = ZProblem.safeParse({ detail: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['status', 'title', 'type']);
  });

  it('rejects a status that is not an HTTP status code', () => {
    expect(ZProblem.safeParse({ type: 'about:blank', title: 'x', status: 42 }).success).toBe(false);
    expect(ZProblem.safeParse({ type: 'about:blank', title: 'x', status: 404.5 }).success).toBe(false);
  });

  it('rejects a malformed errors entry', () => {
    const result = ZProblem.safeParse({ type: 'about:blank', title: 'x', status: 422, errors: [{ path: 'a' }] });
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([['errors', 0, 'message']]);
  });

  it('is registered for OpenAPI as "Problem"', () => {
    expect(z.globalRegistry.get(ZProblem)?.id).toBe('Problem');
  });
});
