import { EventType } from '@ag-ui/core';
import { describe, expect, it } from '@jest/globals';
import { createMessageCollector } from '../runs/collect-messages.js';
import { retryDelayMs } from './process-claim.js';
import { splitText, WHATSAPP_TEXT_LIMIT } from './split-text.js';
import { equalsSecret, hasValidSignature, signBody } from './verify-webhook.js';

describe('splitText', () => {
  it('keeps a short text whole and cuts a long one at word breaks within the limit', () => {
    expect(splitText('hello')).toEqual(['hello']);
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ');
    const parts = splitText(words);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(WHATSAPP_TEXT_LIMIT);
    expect(parts.join(' ')).toBe(words);
  });

  it('cuts text without breaks at the limit, never inside a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(5)}`;
    const parts = splitText(text, 10);
    expect(parts.join('')).toBe(text);
    expect(parts[0]).toBe('a'.repeat(9));
    expect(splitText('x'.repeat(8193))).toHaveLength(3);
  });
});

describe('webhook proofs', () => {
  it('accepts only the exact verify token', () => {
    expect(equalsSecret('token', 'token')).toBe(true);
    expect(equalsSecret('toke', 'token')).toBe(false);
    expect(equalsSecret('', 'token')).toBe(false);
  });

  it('checks sha256=<hex HMAC> of the exact bytes', () => {
    const body = Buffer.from('{"a":1}');
    const header = signBody(body, 's3cret');
    expect(hasValidSignature(body, header, 's3cret')).toBe(true);
    expect(hasValidSignature(body, header.toUpperCase().replace('SHA256=', 'sha256='), 's3cret')).toBe(true);
    expect(hasValidSignature(Buffer.from('{"a":2}'), header, 's3cret')).toBe(false);
    expect(hasValidSignature(body, header, 'other')).toBe(false);
    expect(hasValidSignature(body, undefined, 's3cret')).toBe(false);
    expect(hasValidSignature(body, header.replace('sha256=', 'sha1='), 's3cret')).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('doubles per attempt with ±50 % jitter, capped at an hour', () => {
    expect(retryDelayMs(1, 1000, () => 0.5)).toBe(1000);
    expect(retryDelayMs(3, 1000, () => 0.5)).toBe(4000);
    expect(retryDelayMs(3, 1000, () => 0)).toBe(2000);
    expect(retryDelayMs(40, 1000, () => 0.5)).toBe(3_600_000);
  });
});

describe('createMessageCollector', () => {
  it('rebuilds assistant text, tool calls on their message and tool results', () => {
    const collector = createMessageCollector();
    const events = [
      { type: EventType.RUN_STARTED, threadId: 't', runId: 'r' },
      { type: EventType.TEXT_MESSAGE_START, messageId: 'a1', role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a1', delta: 'Let me ' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a1', delta: 'check.' },
      { type: EventType.TEXT_MESSAGE_END, messageId: 'a1' },
      { type: EventType.TOOL_CALL_START, toolCallId: 'c1', toolCallName: 'echo', parentMessageId: 'a1' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'c1', delta: '{"m":' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'c1', delta: '"x"}' },
      { type: EventType.TOOL_CALL_END, toolCallId: 'c1' },
      { type: EventType.TOOL_CALL_RESULT, messageId: 't1', toolCallId: 'c1', content: 'x' },
      { type: EventType.TEXT_MESSAGE_START, messageId: 'a2', role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a2', delta: 'Done: x' },
      { type: EventType.TEXT_MESSAGE_END, messageId: 'a2' },
      { type: EventType.RUN_FINISHED, threadId: 't', runId: 'r' },
    ];
    for (const event of events) collector.observe(event);
    expect(collector.messages()).toEqual([
      {
        id: 'a1',
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"m":"x"}' } }],
      },
      { id: 't1', role: 'tool', toolCallId: 'c1', content: 'x' },
      { id: 'a2', role: 'assistant', content: 'Done: x' },
    ]);
    expect(collector.text()).toBe('Let me check.\n\nDone: x');
  });
});
