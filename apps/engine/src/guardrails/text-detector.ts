// What every matching rule kind (pattern, pii, prompt_injection) comes down to: something that finds
// matches in a text from a position on, and the longest window of text a match can depend on. The
// streamed output's hold-back is that window, so every detector must have one, and a small one.

/** Receives one match: [start, end) in UTF-16 code units, and what was found (`phrase`, an entity...). */
export type VisitMatch = (start: number, end: number, found: string) => void;

export type TextDetector = {
  /**
   * The most characters, from a match's first one, that decide whether and how it matches: its longest
   * match plus one character of look-ahead (a word boundary, a digit that would make a number longer).
   * Text starting this far before the end of what has arrived can no longer change its verdict.
   */
  readonly windowChars: number;
  /** Visits the matches that start at or after `from`, in order, not overlapping; text before `from` is context only. */
  find: (text: string, from: number, visit: VisitMatch) => void;
};

/**
 * A detector from one of our own JavaScript regular expressions (never a tenant's: theirs run in RE2).
 * Ours have bounded repetitions only and no nested ambiguous quantifiers, so each start position costs
 * a bounded number of steps. `accept` may narrow a candidate: it returns the match's end, or -1 to
 * reject it.
 */
export function regExpDetector(
  source: string,
  flags: string,
  found: string,
  windowChars: number,
  accept?: (text: string, start: number, end: number) => number,
): TextDetector {
  const regExp = new RegExp(source, `${flags}gu`);
  return {
    windowChars,
    find(text, from, visit) {
      regExp.lastIndex = from;
      for (let match = regExp.exec(text); match !== null; match = regExp.exec(text)) {
        const start = match.index;
        const candidateEnd = start + match[0].length;
        const end = accept === undefined ? candidateEnd : accept(text, start, candidateEnd);
        if (end > start) {
          visit(start, end, found);
          regExp.lastIndex = end;
        } else {
          // A rejected candidate: look again from its next character, since a match may start inside it.
          regExp.lastIndex = start + 1;
        }
      }
    },
  };
}
