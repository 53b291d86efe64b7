// A tool call left without a result gets one that says so, beside its turn's other results.
import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from './chat-model.js';
import { answerUnansweredCalls, UNANSWERED_CALL } from './unanswered-calls.js';

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'math__sum', arguments: '{}' } });

describe('unanswered tool calls', () => {
  it('get a result after the results their turn has, and answered calls keep theirs', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'add twice' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: '3' },
      { role: 'user', content: 'never mind' },
    ];
    answerUnansweredCalls(messages);
    expect(messages).toEqual([
      { role: 'user', content: 'add twice' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: '3' },
      { role: 'tool', tool_call_id: 'b', content: UNANSWERED_CALL },
      { role: 'user', content: 'never mind' },
    ]);
  });

  it('leaves a history whose calls all have results as it is', () => {
    const messages: ChatMessage[] = [
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: '3' },
    ];
    const before = structuredClone(messages);
    answerUnansweredCalls(messages);
    expect(messages).toEqual(before);
  });
});
