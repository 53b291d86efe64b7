import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatIssuePath, formatZodIssues } from './format-zod-issues.js';

function errorOf(schema: z.ZodType, input: unknown): z.ZodError {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the input to be rejected');
  return result.error;
}

describe('formatIssuePath', () => {
  it('joins object keys with dots and array indexes with brackets', () => {
    expect(formatIssuePath(['integration', 'config', 'apiVersion'])).toBe('integration.config.apiVersion');
    expect(formatIssuePath(['mcp_server', 'args', 0])).toBe('mcp_server.args[0]');
    expect(formatIssuePath([0, 'name'])).toBe('[0].name');
  });

  it('quotes keys that are not identifiers', () => {
    expect(formatIssuePath(['mcp_server', 'headers', 'X-Api-Key'])).toBe('mcp_server.headers["X-Api-Key"]');
    expect(formatIssuePath(['a', 'b.c'])).toBe('a["b.c"]');
  });

  it('renders the root as an empty path', () => {
    expect(formatIssuePath([])).toBe('');
  });
});

describe('formatZodIssues', () => {
  it('maps each issue to its path and message', () => {
    const schema = z.object({ outer: z.object({ list: z.array(z.string()) }) });
    expect(formatZodIssues(errorOf(schema, { outer: { list: ['ok', 7] } }))).toEqual([
      { path: 'outer.list[1]', message: expect.stringContaining('expected string') },
    ]);
  });

  it('emits one entry per unknown key, located at the key and naming it', () => {
    const schema = z.strictObject({ inner: z.strictObject({ keep: z.string() }) });
    const errors = formatZodIssues(errorOf(schema, { inner: { keep: 'x', extra: 1, other: 2 }, top: true }));
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'inner.extra', message: 'Unknown field "extra"' },
        { path: 'inner.other', message: 'Unknown field "other"' },
        { path: 'top', message: 'Unknown field "top"' },
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  it('keeps the path a refinement points at', () => {
    const schema = z.object({ a: z.string() }).superRefine((_value, ctx) => {
      ctx.addIssue({ code: 'custom', path: ['a'], message: 'bad a' });
    });
    expect(formatZodIssues(errorOf(schema, { a: 'x' }))).toEqual([{ path: 'a', message: 'bad a' }]);
  });
});
