import { describe, expect, it } from '@jest/globals';
import { ZDatasetItemInput } from './dataset.js';
import { threadToDatasetItem } from './thread-to-item.js';

describe('threadToDatasetItem', () => {
  it('takes the conversation up to the last user message as input, and the last reply after it as expected', () => {
    const item = threadToDatasetItem(
      [
        { id: 'm1', role: 'user', content: 'Weather?' },
        {
          id: 'm2',
          role: 'assistant',
          toolCalls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
        },
        { id: 'm3', role: 'tool', content: '18°C', toolCallId: 'c1' },
        { id: 'm4', role: 'assistant', content: 'It is 18°C.' },
        { id: 'm5', role: 'reasoning', content: 'hidden' },
        { id: 'm6', role: 'user', content: 'And tomorrow?' },
        { id: 'm7', role: 'assistant', content: 'Let me check.' },
        { id: 'm8', role: 'assistant', content: 'Sunny.' },
      ],
      { thread_id: 't1' },
    );
    expect(item).toEqual({
      input: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          toolCalls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
        },
        { role: 'tool', content: '18°C', toolCallId: 'c1' },
        { role: 'assistant', content: 'It is 18°C.' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      expected: { reply: 'Sunny.' },
      metadata: { thread_id: 't1' },
    });
    expect(ZDatasetItemInput.safeParse(item).success).toBe(true);
  });

  it('expects nothing when no reply followed, and makes no item of a thread without a user message', () => {
    expect(threadToDatasetItem([{ role: 'user', content: 'Hi' }])).toEqual({
      input: [{ role: 'user', content: 'Hi' }],
      expected: null,
      metadata: null,
    });
    expect(threadToDatasetItem([{ role: 'assistant', content: 'Hello' }])).toBeUndefined();
    expect(threadToDatasetItem([{ role: 'user', content: [{ type: 'binary' }] }])).toBeUndefined();
  });
});
