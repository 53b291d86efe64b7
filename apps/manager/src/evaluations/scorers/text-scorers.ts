// The scorers that read the reply as text: exact_match, contains and regex. Texts are compared in
// Unicode normalization form C, so that an accented letter typed as one code point or as a letter and
// a combining mark is the same text; regular expressions run in RE2 (linear time, whatever the pattern).
import type { TScorerOf } from '@agentplane/contracts';
import { RE2JS } from 're2js';
import { type CompiledScorer, NO_REPLY, quote } from './grade.js';

type Comparison = { caseSensitive: boolean; normalizeWhitespace?: boolean };

function normalize(text: string, { caseSensitive, normalizeWhitespace = false }: Comparison): string {
  let normalized = text.normalize('NFC');
  if (normalizeWhitespace) normalized = normalized.trim().replace(/\s+/gu, ' ');
  return caseSensitive ? normalized : normalized.toLowerCase();
}

export function compileExactMatch(scorer: TScorerOf<'exact_match'>): CompiledScorer {
  const comparison = { caseSensitive: scorer.case_sensitive, normalizeWhitespace: scorer.normalize_whitespace };
  return ({ observation, expected }) => {
    const wanted = scorer.value ?? expected.reply;
    if (wanted === undefined) return { score: null, reason: 'No value to compare with: the item expects no reply' };
    if (observation.reply === null) return NO_REPLY;
    return normalize(observation.reply, comparison) === normalize(wanted, comparison)
      ? { score: 1, reason: 'The reply equals the expected text' }
      : { score: 0, reason: `The reply differs from ${quote(wanted)}` };
  };
}

export function compileContains(scorer: TScorerOf<'contains'>): CompiledScorer {
  const comparison = { caseSensitive: scorer.case_sensitive };
  const texts = scorer.texts.map((text) => ({ text, normalized: normalize(text, comparison) }));
  return ({ observation }) => {
    if (observation.reply === null) return NO_REPLY;
    const reply = normalize(observation.reply, comparison);
    const missing = texts.filter(({ normalized }) => !reply.includes(normalized)).map(({ text }) => text);
    const found = texts.length - missing.length;
    if (scorer.mode === 'any') {
      return found > 0
        ? { score: 1, reason: `Found ${found} of ${texts.length} texts` }
        : { score: 0, reason: 'Found none of the texts' };
    }
    return {
      score: found / texts.length,
      reason:
        missing.length === 0
          ? 'Found every text'
          : `Found ${found} of ${texts.length} texts; missing ${missing.slice(0, 3).map(quote).join(', ')}${missing.length > 3 ? '…' : ''}`,
    };
  };
}

export function compileRegex(scorer: TScorerOf<'regex'>): CompiledScorer {
  // The pattern was validated when it was written; compiling again here cannot fail on a stored scorer.
  const pattern = RE2JS.compile(scorer.pattern, scorer.case_sensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  return ({ observation }) => {
    if (observation.reply === null) return NO_REPLY;
    const matcher = pattern.matcher(observation.reply);
    const matched = scorer.full_match ? matcher.matches() : matcher.find();
    const what = scorer.full_match ? 'The whole reply' : 'The reply';
    return matched
      ? { score: 1, reason: `${what} matches the pattern` }
      : { score: 0, reason: `${what} does not match the pattern` };
  };
}
