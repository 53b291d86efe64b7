// Every kind but model_judge, graded through the library's entry: exact scores and reasons, and the
// edges (no reply, nothing expected, invalid JSON, hostile patterns and schemas, Unicode).

import { ZScorer } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { afterAll, describe, expect, it } from '@jest/globals';
import { compileScorers } from './compile-scorers.js';
import { createScoringKit, replied } from './scoring-test-kit.js';

const kit = createScoringKit();
afterAll(() => kit.close());

describe('exact_match', () => {
  const scorer = { name: 'exact', kind: 'exact_match' } as const;

  it("compares the reply with the item's expected reply, or with its own value", async () => {
    expect(await kit.grade(scorer, replied('Paris', {}, { reply: 'Paris' }))).toMatchObject({ score: 1 });
    expect(await kit.grade(scorer, replied('paris', {}, { reply: 'Paris' }))).toMatchObject({
      score: 0,
      reason: 'The reply differs from "Paris"',
    });
    expect(await kit.grade({ ...scorer, value: 'Rome' }, replied('Rome', {}, { reply: 'Paris' }))).toMatchObject({
      score: 1,
    });
  });

  it('ignores case and collapses white space only when asked', async () => {
    const loose = { ...scorer, case_sensitive: false, normalize_whitespace: true };
    expect(
      await kit.grade(loose, replied('  the   CAPITAL\nis Paris ', {}, { reply: 'The capital is paris' })),
    ).toMatchObject({ score: 1 });
    expect(await kit.grade(scorer, replied('Paris ', {}, { reply: 'Paris' }))).toMatchObject({ score: 0 });
  });

  it('treats canonically equivalent Unicode as the same text', async () => {
    // "é" as one code point, and as "e" with a combining acute accent.
    expect(await kit.grade(scorer, replied('caf\u00e9', {}, { reply: 'cafe\u0301' }))).toMatchObject({ score: 1 });
  });

  it('gives 0 for no reply, and no score when there is nothing to compare with', async () => {
    expect(await kit.grade(scorer, replied(null, {}, { reply: 'Paris' }))).toMatchObject({
      score: 0,
      reason: 'The run gave no reply',
    });
    expect(await kit.grade(scorer, replied('Paris'))).toMatchObject({ score: null });
  });

  it('quotes at most 60 characters of the expected text in its reason', async () => {
    const long = 'x'.repeat(500);
    const { reason } = await kit.grade(scorer, replied('y', {}, { reply: long }));
    expect(reason).toBe(`The reply differs from "${'x'.repeat(60)}…"`);
  });
});

describe('contains', () => {
  it('scores the share of texts found in `all` mode, and names what is missing', async () => {
    const scorer = { name: 'c', kind: 'contains', texts: ['Paris', 'France', 'Seine', 'Louvre'] } as const;
    expect(await kit.grade(scorer, replied('paris is in FRANCE'))).toEqual({
      name: 'c',
      kind: 'contains',
      score: 0.5,
      reason: 'Found 2 of 4 texts; missing "Seine", "Louvre"',
    });
  });

  it('gives 1 when any text is found in `any` mode, case-sensitively when asked', async () => {
    const scorer = {
      name: 'c',
      kind: 'contains',
      texts: ['Paris', 'Rome'],
      mode: 'any',
      case_sensitive: true,
    } as const;
    expect(await kit.grade(scorer, replied('Rome, then Paris'))).toMatchObject({ score: 1 });
    expect(await kit.grade(scorer, replied('rome and paris'))).toMatchObject({ score: 0 });
    expect(await kit.grade(scorer, replied(null))).toMatchObject({ score: 0 });
  });

  it('finds emoji and other astral characters', async () => {
    const scorer = { name: 'c', kind: 'contains', texts: ['👍🏽'] } as const;
    expect(await kit.grade(scorer, replied('Done 👍🏽!'))).toMatchObject({ score: 1 });
  });
});

describe('regex', () => {
  it('searches the reply, or matches it whole when asked', async () => {
    const scorer = { name: 'r', kind: 'regex', pattern: '\\d{3}-\\d{4}' } as const;
    expect(await kit.grade(scorer, replied('Call 555-1234 now'))).toMatchObject({ score: 1 });
    expect(await kit.grade({ ...scorer, full_match: true }, replied('Call 555-1234 now'))).toMatchObject({
      score: 0,
      reason: 'The whole reply does not match the pattern',
    });
    expect(await kit.grade({ ...scorer, full_match: true }, replied('555-1234'))).toMatchObject({ score: 1 });
  });

  it('ignores case when asked, Unicode letters included', async () => {
    const scorer = { name: 'r', kind: 'regex', pattern: 'ÉTÉ', case_sensitive: false } as const;
    expect(await kit.grade(scorer, replied('un bel été'))).toMatchObject({ score: 1 });
  });

  it('runs a pattern that backtracks catastrophically elsewhere in linear time, to the right answer', async () => {
    const scorer = { name: 'r', kind: 'regex', pattern: '^(a+)+$' } as const;
    expect(await kit.grade(scorer, replied(`${'a'.repeat(100_000)}!`))).toMatchObject({ score: 0 });
  });

  it('is refused when written with lookaround or a backreference', () => {
    for (const pattern of ['(?=a)b', '(a)\\1', '(?<!x)y']) {
      const parsed = ZScorer.safeParse({ name: 'r', kind: 'regex', pattern });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/Not an RE2 regular expression/);
    }
  });
});

describe('json_schema', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string', pattern: '^[A-Z]' }, population: { type: 'integer', minimum: 0 } },
    required: ['city'],
    additionalProperties: false,
  };
  const scorer = { name: 'j', kind: 'json_schema', schema } as const;

  it('gives 1 for a JSON reply the schema accepts, 0 naming the first fault otherwise', async () => {
    expect(await kit.grade(scorer, replied('{"city":"Paris","population":2100000}'))).toMatchObject({ score: 1 });
    expect(await kit.grade(scorer, replied('{"city":"paris"}'))).toMatchObject({
      score: 0,
      reason: 'The reply is JSON, not valid against the schema: /city must match pattern "^[A-Z]"',
    });
    expect(await kit.grade(scorer, replied('{"population":-1,"city":"Rome"}'))).toMatchObject({ score: 0 });
  });

  it('gives 0 for a reply that is not JSON as it stands (a code fence included), or no reply', async () => {
    for (const reply of ['{"city": "Paris"', 'Paris', '```json\n{"city":"Paris"}\n```', '']) {
      expect(await kit.grade(scorer, replied(reply))).toEqual({
        name: 'j',
        kind: 'json_schema',
        score: 0,
        reason: 'The reply is not JSON',
      });
    }
    expect(await kit.grade(scorer, replied(null))).toMatchObject({ score: 0, reason: 'The run gave no reply' });
  });

  it('runs patterns in RE2: one that backtracks catastrophically answers at once', async () => {
    const hostile = { name: 'j', kind: 'json_schema', schema: { type: 'string', pattern: '^(a|a)+$' } } as const;
    expect(await kit.grade(hostile, replied(JSON.stringify(`${'a'.repeat(50_000)}b`)))).toMatchObject({ score: 0 });
  });

  function compileError(schemaToTry: Record<string, unknown>) {
    try {
      compileScorers(
        [ZScorer.parse({ name: 'j', kind: 'json_schema', schema: schemaToTry })],
        {
          judge: { egress: kit.egress, timeoutMs: 1, openSecret: (value) => value },
        },
        ['scorers'],
      );
    } catch (error) {
      return error as AppError;
    }
    throw new Error('compiled');
  }

  it('refuses a schema Ajv cannot compile, a lookahead pattern, a remote $ref and an unbounded uniqueItems (422 with a path)', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ type: 'nonsense' }, 'scorers[0].schema', /Not a usable JSON Schema/],
      [{ type: 'string', pattern: '(?=a)' }, 'scorers[0].schema', /Not a usable JSON Schema/],
      [{ $ref: 'https://example.com/schema.json' }, 'scorers[0].schema', /Not a usable JSON Schema/],
      [{ type: 'array', uniqueItems: true }, 'scorers[0].schema.uniqueItems', /maxItems of at most 1000/],
      [
        { properties: { tags: { type: 'array', uniqueItems: true, maxItems: 5000 } } },
        'scorers[0].schema.properties.tags.uniqueItems',
        /maxItems/,
      ],
    ];
    for (const [schemaToTry, path, message] of cases) {
      const error = compileError(schemaToTry);
      expect(error).toBeInstanceOf(AppError);
      expect(error.status).toBe(422);
      expect(error.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
  });

  it('accepts a bounded uniqueItems, and ignores format', async () => {
    const bounded = {
      name: 'j',
      kind: 'json_schema',
      schema: { type: 'array', uniqueItems: true, maxItems: 10, items: { type: 'string', format: 'email' } },
    } as const;
    expect(await kit.grade(bounded, replied('["a","b"]'))).toMatchObject({ score: 1 });
    expect(await kit.grade(bounded, replied('["a","a"]'))).toMatchObject({ score: 0 });
  });
});

describe('tool_called', () => {
  const calls = [
    { name: 'search', arguments: { query: 'weather in Paris', options: { units: 'metric', limit: 3 }, tags: ['a'] } },
    { name: 'book', arguments: { city: 'Rome' } },
  ];

  it('finds a named tool, with arguments compared as a subset, recursively', async () => {
    const scorer = { name: 't', kind: 'tool_called', tool: 'search' } as const;
    expect(await kit.grade(scorer, replied(null, { tool_calls: calls }))).toMatchObject({ score: 1 });
    expect(
      await kit.grade({ ...scorer, arguments: { options: { units: 'metric' } } }, replied(null, { tool_calls: calls })),
    ).toMatchObject({ score: 1 });
    expect(
      await kit.grade(
        { ...scorer, arguments: { options: { units: 'imperial' } } },
        replied(null, { tool_calls: calls }),
      ),
    ).toMatchObject({ score: 0, reason: 'Called "search" 1 time(s), never with matching arguments' });
    // Arrays compare item by item, with the same length.
    expect(await kit.grade({ ...scorer, arguments: { tags: [] } }, replied(null, { tool_calls: calls }))).toMatchObject(
      { score: 0 },
    );
    expect(
      await kit.grade({ name: 't', kind: 'tool_called', tool: 'delete' }, replied(null, { tool_calls: calls })),
    ).toMatchObject({ score: 0, reason: 'Never called "delete"' });
  });

  it('matches an argument pattern against a string, or against the JSON of any other value', async () => {
    const scorer = {
      name: 't',
      kind: 'tool_called',
      tool: 'search',
      argument_patterns: { query: '(?i)paris', options: '"limit":3' },
    } as const;
    expect(await kit.grade(scorer, replied(null, { tool_calls: calls }))).toMatchObject({ score: 1 });
    expect(
      await kit.grade({ ...scorer, argument_patterns: { missing: '.' } }, replied(null, { tool_calls: calls })),
    ).toMatchObject({ score: 0 });
  });

  it("without a tool named, scores the share of the item's expected calls made", async () => {
    const scorer = { name: 't', kind: 'tool_called' } as const;
    const expected = { tool_calls: [{ name: 'book', arguments: { city: 'Rome' } }, { name: 'pay' }] };
    expect(await kit.grade(scorer, replied(null, { tool_calls: calls }, expected))).toMatchObject({
      score: 0.5,
      reason: 'Made 1 of 2 expected calls; missing "pay"',
    });
    expect(await kit.grade(scorer, replied(null, { tool_calls: [] }, { tool_calls: [] }))).toMatchObject({ score: 1 });
    expect(await kit.grade(scorer, replied(null, { tool_calls: calls }, { tool_calls: [] }))).toMatchObject({
      score: 0,
    });
    expect(await kit.grade(scorer, replied(null, { tool_calls: calls }))).toMatchObject({ score: null });
  });
});

describe('latency and tokens', () => {
  it('gives 1 up to the target, 0 past the maximum and a linear score between', async () => {
    const scorer = { name: 'l', kind: 'latency', target: 1000, max: 3000 } as const;
    expect((await kit.grade(scorer, replied('x', { latency_ms: 1000 }))).score).toBe(1);
    expect((await kit.grade(scorer, replied('x', { latency_ms: 2500 }))).score).toBe(0.25);
    expect((await kit.grade(scorer, replied('x', { latency_ms: 3000 }))).score).toBe(0);
    expect(await kit.grade(scorer, replied('x', { latency_ms: 3001 }))).toMatchObject({
      score: 0,
      reason: '3001 ms, over the maximum of 3000',
    });
  });

  it('without a target, is a pass or fail at the maximum', async () => {
    const scorer = { name: 't', kind: 'tokens', max: 100 } as const;
    const tokens = (total: number) => ({ input: 0, output: total, total });
    expect((await kit.grade(scorer, replied('x', { tokens: tokens(100) }))).score).toBe(1);
    expect((await kit.grade(scorer, replied('x', { tokens: tokens(101) }))).score).toBe(0);
  });

  it('gives no score for a run that recorded none', async () => {
    expect(await kit.grade({ name: 'l', kind: 'latency', max: 10 }, replied('x'))).toMatchObject({ score: null });
    expect(await kit.grade({ name: 't', kind: 'tokens', max: 10 }, replied('x'))).toMatchObject({ score: null });
  });
});
