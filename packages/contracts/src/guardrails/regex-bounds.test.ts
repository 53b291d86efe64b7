// A pattern's shortest and longest match in UTF-16 code units: what the streamed output holds back.
import { describe, expect, it } from '@jest/globals';
import { regexMatchBounds } from './regex-bounds.js';

describe('regexMatchBounds', () => {
  it.each([
    ['abc', 3, 3],
    ['a{2,5}', 2, 5],
    ['(ab|c){1,3}', 1, 6],
    // A class of BMP characters matches one code unit; one that may match an astral character, two.
    ['[a-z0-9_]{1,10}', 1, 10],
    ['[\\w.-]{2}', 2, 2],
    ['\\d{3}-\\d{4}', 8, 8],
    ['[^a]', 1, 2],
    ['[a-z\\u{1F600}]', 1, 2],
    ['[\\p{L}]', 1, 2],
    ['.', 1, 2],
    ['\\p{L}', 1, 2],
    ['😀', 2, 2],
    ['\\bfoo\\b', 3, 3],
  ])('bounds %s to [%d, %d]', (source, min, max) => {
    expect(regexMatchBounds(source)).toEqual({ min, max });
  });

  it('finds an unbounded repetition', () => {
    expect(regexMatchBounds('a+').max).toBe(Number.POSITIVE_INFINITY);
    expect(regexMatchBounds('[a-z]{2,}').max).toBe(Number.POSITIVE_INFINITY);
  });
});
