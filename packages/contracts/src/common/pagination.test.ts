import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from './format-zod-issues.js';
import { ZPaginationQuery } from './pagination.js';

function rejectedPaths(query: Record<string, unknown>): string[] {
  const result = ZPaginationQuery.safeParse(query);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe('ZPaginationQuery', () => {
  it('defaults to limit 100 and offset 0 when both are absent', () => {
    expect(ZPaginationQuery.parse({})).toStrictEqual({ limit: 100, offset: 0 });
  });

  it.each([
    ['1', 1],
    ['1000', 1000],
    ['50', 50],
    ['007', 7],
  ])('accepts limit %j as %d', (limit, expected) => {
    expect(ZPaginationQuery.parse({ limit })).toStrictEqual({ limit: expected, offset: 0 });
  });

  it.each(['0', '1001', '-1', '1.5', 'abc', '', '1e3', ' 5', '5 ', '0x10', '+5', '99999999999999999999'])(
    'rejects limit %j at limit',
    (limit) => {
      expect(rejectedPaths({ limit })).toEqual(['limit']);
    },
  );

  it('accepts offset "0" and a large offset', () => {
    expect(ZPaginationQuery.parse({ offset: '0' })).toStrictEqual({ limit: 100, offset: 0 });
    expect(ZPaginationQuery.parse({ offset: '250', limit: '25' })).toStrictEqual({ limit: 25, offset: 250 });
  });

  it.each(['-1', '1.5', 'abc', '', '1e3', '9007199254740993'])('rejects offset %j at offset', (offset) => {
    expect(rejectedPaths({ offset })).toEqual(['offset']);
  });

  it('rejects a repeated parameter, which a query parser hands over as an array', () => {
    expect(rejectedPaths({ limit: ['1', '2'] })).toEqual(['limit']);
  });

  it('ignores other query parameters', () => {
    expect(ZPaginationQuery.parse({ limit: '5', _: '123' })).toStrictEqual({ limit: 5, offset: 0 });
  });
});
