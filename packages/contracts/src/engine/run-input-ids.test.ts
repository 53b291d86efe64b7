import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../common/format-zod-issues.js';
import { AGUI_ID_MAX_LENGTH } from '../common/limits.js';
import { ZAguiId, ZRunInputIds } from './run-input-ids.js';

describe('ZAguiId', () => {
  it('accepts ordinary ids, astral characters and the longest allowed', () => {
    for (const id of ['run-1', 'thread 😀 é', 'x'.repeat(AGUI_ID_MAX_LENGTH)]) {
      expect(ZAguiId.safeParse(id).success).toBe(true);
    }
  });

  it.each([
    ['empty', ''],
    ['one past the cap', 'x'.repeat(AGUI_ID_MAX_LENGTH + 1)],
    ['a NUL', 'a\u0000b'],
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'x\udfff'],
    ['a newline', 'a\nb'],
    ['an escape', '\u001b[31m'],
  ])('refuses %s', (_what, id) => {
    expect(ZAguiId.safeParse(id).success).toBe(false);
  });
});

describe('ZRunInputIds', () => {
  const input = {
    threadId: 't',
    runId: 'r',
    messages: [{ id: 'm', role: 'tool', toolCallId: 'c', content: 'anything \u0007 goes here' }],
    state: { free: 'form' },
  };

  it('checks only the ids, leaving contents and the rest alone', () => {
    expect(ZRunInputIds.safeParse(input).success).toBe(true);
  });

  it('names the field of each bad id', () => {
    const result = ZRunInputIds.safeParse({
      ...input,
      runId: 'r\u0000',
      parentRunId: '\ud800',
      messages: [
        { id: 'ok', toolCalls: [{ id: 'x'.repeat(100_000) }] },
        { id: 'a\u0001', toolCallId: '' },
      ],
    });
    expect(result.success).toBe(false);
    const paths = formatZodIssues(result.error as never).map((issue) => issue.path);
    expect(paths.sort()).toEqual(
      ['messages[0].toolCalls[0].id', 'messages[1].id', 'messages[1].toolCallId', 'parentRunId', 'runId'].sort(),
    );
  });
});
