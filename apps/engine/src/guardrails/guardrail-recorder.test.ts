// What a record keeps of a matched text when content is captured: at most its first
// GUARDRAIL_MATCHED_TEXT_MAX_LENGTH code units, never half a surrogate pair, nothing jsonb refuses.
import { GUARDRAIL_MATCHED_TEXT_MAX_LENGTH } from '@agentplane/contracts';
import { describe, expect, it } from '@jest/globals';
import { cutMatchedText } from './guardrail-recorder.js';

describe('cutMatchedText', () => {
  it('keeps a short text whole and cuts a long one to the limit', () => {
    expect(cutMatchedText('ada@example.com')).toBe('ada@example.com');
    expect(cutMatchedText('x'.repeat(GUARDRAIL_MATCHED_TEXT_MAX_LENGTH + 50))).toBe(
      'x'.repeat(GUARDRAIL_MATCHED_TEXT_MAX_LENGTH),
    );
  });

  it('never ends in half a surrogate pair, and replaces what jsonb cannot hold', () => {
    const text = `${'x'.repeat(GUARDRAIL_MATCHED_TEXT_MAX_LENGTH - 1)}😀 and more`;
    expect(cutMatchedText(text)).toBe('x'.repeat(GUARDRAIL_MATCHED_TEXT_MAX_LENGTH - 1));
    expect(cutMatchedText('a\u0000b\ud800c')).toBe('a\uFFFDb\uFFFDc');
  });
});
