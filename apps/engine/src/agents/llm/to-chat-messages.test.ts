import type { RunAgentInput } from '@ag-ui/core';
import { describe, expect, it } from '@jest/globals';
import { toChatMessages, toChatTool } from './to-chat-messages.js';

const input = (overrides: Partial<RunAgentInput>): RunAgentInput => ({
  threadId: 't',
  runId: 'r',
  messages: [],
  tools: [],
  context: [],
  ...overrides,
});

describe('toChatMessages', () => {
  it('puts instructions and context in one system message first', () => {
    const messages = toChatMessages(
      input({ context: [{ description: 'User timezone', value: 'Europe/Paris' }] }),
      'You are terse.',
    );
    expect(messages).toEqual([
      { role: 'system', content: 'You are terse.\n\nContext:\n- User timezone: Europe/Paris' },
    ]);
    expect(toChatMessages(input({}), undefined)).toEqual([]);
  });

  it('maps every conversational role, with tool calls and tool results paired by id', () => {
    const messages = toChatMessages(
      input({
        messages: [
          { id: '1', role: 'developer', content: 'Prefer metric units.' },
          { id: '2', role: 'user', content: 'weather?' },
          {
            id: '3',
            role: 'assistant',
            content: 'Checking.',
            toolCalls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
          },
          { id: '4', role: 'tool', toolCallId: 'c1', content: '18°C' },
          { id: '5', role: 'tool', toolCallId: 'c2', content: '', error: 'timeout' },
          { id: '6', role: 'reasoning', content: 'hidden' },
        ],
      }),
      undefined,
    );
    expect(messages).toEqual([
      { role: 'system', content: 'Prefer metric units.' },
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '18°C' },
      { role: 'tool', tool_call_id: 'c2', content: 'timeout' },
    ]);
  });

  it('keeps images of a user message as image parts and flattens text-only parts', () => {
    const [withImage, textOnly] = toChatMessages(
      input({
        messages: [
          {
            id: '1',
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', source: { type: 'data', value: 'AAAA', mimeType: 'image/png' } },
            ],
          },
          {
            id: '2',
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      }),
      undefined,
    );
    expect(withImage).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
    expect(textOnly).toEqual({ role: 'user', content: 'ab' });
  });
});

describe('toChatTool', () => {
  it('gives a tool without parameters an empty object schema', () => {
    expect(toChatTool({ name: 'ping', description: 'Ping' })).toEqual({
      type: 'function',
      function: { name: 'ping', description: 'Ping', parameters: { type: 'object', properties: {} } },
    });
  });
});
