// How long a match of a guardrail's regular expression can be. The engine filters a streamed reply by
// holding back the last characters it has not sent: a match longer than that hold-back could leave
// the engine half sent. So every pattern must have a bounded longest match, known at write time.
import { RegExpParser } from '@eslint-community/regexpp';
import type { Alternative, CharacterClass, Element, Pattern } from '@eslint-community/regexpp/ast';

/** The shortest and longest match of a pattern, in UTF-16 code units; max is Infinity when unbounded. */
export type MatchBounds = { min: number; max: number };

const parser = new RegExpParser({ ecmaVersion: 2025 });

function sumBounds(elements: readonly Element[]): MatchBounds {
  let min = 0;
  let max = 0;
  for (const element of elements) {
    const bounds = elementBounds(element);
    min += bounds.min;
    max += bounds.max;
  }
  return { min, max };
}

function alternativesBounds(alternatives: readonly Alternative[]): MatchBounds {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const alternative of alternatives) {
    const bounds = sumBounds(alternative.elements);
    min = Math.min(min, bounds.min);
    max = Math.max(max, bounds.max);
  }
  return { min: Number.isFinite(min) ? min : 0, max };
}

const BMP_MAX = 0xffff;

function classMayMatchAstral(element: CharacterClass): boolean {
  if (element.negate) return true;
  return element.elements.some((member) => {
    if (member.type === 'Character') return member.value > BMP_MAX;
    if (member.type === 'CharacterClassRange') return member.max.value > BMP_MAX;
    // \d, \s and \w match BMP characters only; a property escape may not.
    return member.type !== 'CharacterSet' || member.kind === 'property';
  });
}

function elementBounds(element: Element): MatchBounds {
  switch (element.type) {
    case 'Character':
      return element.value > 0xffff ? { min: 2, max: 2 } : { min: 1, max: 1 };
    // A class or `.` may match an astral code point (two code units) in unicode mode; a class of BMP
    // characters only (`[a-z0-9_]`, `[\w.-]`) matches one.
    case 'CharacterClass':
      return { min: 1, max: classMayMatchAstral(element) ? 2 : 1 };
    case 'ExpressionCharacterClass':
      return { min: 1, max: 2 };
    case 'CharacterSet':
      return element.kind === 'any' || element.kind === 'property' ? { min: 1, max: 2 } : { min: 1, max: 1 };
    case 'Group':
    case 'CapturingGroup':
      return alternativesBounds(element.alternatives);
    case 'Quantifier': {
      const inner = elementBounds(element.element);
      // Repeating what matches nothing stays nothing, however often.
      const max = inner.max === 0 ? 0 : inner.max * element.max;
      return { min: inner.min * element.min, max };
    }
    default:
      // Assertions (^, $, \b) and the rest match no characters themselves.
      return { min: 0, max: 0 };
  }
}

/** Throws SyntaxError when `source` is not an ECMAScript regular expression (unicode mode). */
export function regexMatchBounds(source: string): MatchBounds {
  const pattern: Pattern = parser.parsePattern(source, 0, source.length, { unicode: true });
  return alternativesBounds(pattern.alternatives);
}
