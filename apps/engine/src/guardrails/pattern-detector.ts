// A pattern rule's detectors: its phrases as one literal alternation, its regular expressions in RE2.
// A tenant's regular expression never runs in JavaScript's backtracking engine: RE2 matches in time
// linear in the text, whatever the pattern (the contract also bounds every pattern's longest match).
import { regexMatchBounds } from '@agentplane/contracts';
import { RE2JS } from 're2js';
import type { TextDetector, VisitMatch } from './text-detector.js';

/** A detector's one character of look-ahead past its longest match (text-detector.ts). */
const LOOK_AHEAD_CHARS = 1;

const SYNTAX_CHARACTERS = /[\\^$.*+?()[\]{}|/]/g;

/**
 * Phrases run as one JavaScript alternation of escaped literals: no quantifier, so no backtracking
 * beyond trying each phrase once per position, and far faster than RE2JS on plain words.
 */
export function phraseDetector(phrases: readonly string[], caseSensitive: boolean): TextDetector {
  // Longest first: where two phrases start at the same character, the longer one is the match.
  const source = [...phrases]
    .sort((a, b) => b.length - a.length)
    .map((phrase) => phrase.replace(SYNTAX_CHARACTERS, '\\$&'))
    .join('|');
  const regExp = new RegExp(source, caseSensitive ? 'gu' : 'giu');
  const longest = Math.max(...phrases.map((phrase) => phrase.length));
  return {
    // A literal match needs no look-ahead: once the longest phrase fits after its start, nothing that
    // follows can change it. Simple case folding maps a BMP character to a BMP one and an astral to an
    // astral, so a match is as long as its phrase.
    windowChars: longest,
    find(text, from, visit) {
      regExp.lastIndex = from;
      for (let match = regExp.exec(text); match !== null; match = regExp.exec(text)) {
        visit(match.index, match.index + match[0].length, 'phrase');
      }
    },
  };
}

/** The rule's regular expressions as one RE2 alternation, each source in its own group. */
export function regexDetector(regexes: readonly string[], caseSensitive: boolean): TextDetector {
  const pattern = RE2JS.compile(
    regexes.map((source) => `(?:${source})`).join('|'),
    caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE,
  );
  const longest = Math.max(...regexes.map((source) => regexMatchBounds(source).max));
  return {
    windowChars: longest + LOOK_AHEAD_CHARS,
    find(text: string, from: number, visit: VisitMatch) {
      const matcher = pattern.matcher(text);
      let position = from;
      while (position <= text.length && matcher.find(position)) {
        const start = matcher.start();
        const end = matcher.end();
        // The contract refuses a pattern that can match the empty string; step on regardless.
        if (end === start) {
          position = start + 1;
          continue;
        }
        visit(start, end, 'regex');
        position = end;
      }
    },
  };
}
