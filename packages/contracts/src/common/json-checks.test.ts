import { describe, expect, it } from '@jest/globals';
import { describeUnstorableText, findJsonProblem, toStorableText } from './json-checks.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe('describeUnstorableText', () => {
  it('accepts ordinary text, astral characters included', () => {
    expect(describeUnstorableText('héllo 😀 \t\n')).toBeUndefined();
  });

  it.each(['a\u0000b', '\ud800', 'x\udc00', '\udc00\ud800'])('refuses %j', (text) => {
    expect(describeUnstorableText(text)).toMatch(/NUL|surrogate/);
  });
});

describe('toStorableText', () => {
  it('replaces each NUL and lone surrogate with U+FFFD, and keeps paired surrogates', () => {
    expect(toStorableText('a\u0000b\ud800c😀\udc00\u0000')).toBe('a\uFFFDb\uFFFDc😀\uFFFD\uFFFD');
  });

  it('leaves storable text as it is', () => {
    expect(toStorableText('héllo 😀 \t\n')).toBe('héllo 😀 \t\n');
  });
});

describe('findJsonProblem', () => {
  it('finds nothing in a clean value', () => {
    expect(findJsonProblem({ a: [1, 'two', { three: null }] }, { maxDepth: 3 })).toBeUndefined();
  });

  it('names the path of a NUL in a string, in an array', () => {
    expect(findJsonProblem({ a: [{ b: 'x\u0000' }] }, { maxDepth: 8 })).toEqual({
      path: ['a', 0, 'b'],
      message: 'Must not contain a NUL character (\\u0000)',
    });
  });

  it('names a key holding a lone surrogate or NUL', () => {
    expect(findJsonProblem({ ok: { '\ud800': 1 } }, { maxDepth: 8 })?.path).toEqual(['ok', '\ud800']);
    expect(findJsonProblem({ 'k\u0000': 1 }, { maxDepth: 8 })?.path).toEqual(['k\u0000']);
  });

  it('refuses a __proto__ key as JSON.parse makes it', () => {
    expect(findJsonProblem(JSON.parse('{"a":{"__proto__":{"x":1}}}'), { maxDepth: 8 })).toEqual({
      path: ['a', '__proto__'],
      message: '"__proto__" is not accepted as a key',
    });
  });

  it('accepts exactly maxDepth levels and names the first level past it', () => {
    expect(findJsonProblem(nested(3), { maxDepth: 3 })).toBeUndefined();
    expect(findJsonProblem(nested(4), { maxDepth: 3 })).toEqual({
      path: ['a', 'a', 'a'],
      message: 'Must not nest objects and arrays more than 3 deep',
    });
  });

  it('stops at the depth limit, so a value nested 100,000 deep does not exhaust the stack', () => {
    expect(findJsonProblem(nested(100_000), { maxDepth: 32 })?.path).toHaveLength(32);
  });
});
