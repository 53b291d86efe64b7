import { type BaseEvent, EventType } from '@ag-ui/core';
import { describe, expect, it } from '@jest/globals';
import type { ModelDelta } from './chat-model.js';
import { type ModelTurn, streamModelTurn } from './stream-model-turn.js';

async function play(deltas: ModelDelta[]): Promise<{ events: BaseEvent[]; turn: ModelTurn }> {
  async function* source() {
    yield* deltas;
  }
  const events: BaseEvent[] = [];
  const generator = streamModelTurn(source());
  for (;;) {
    const next = await generator.next();
    if (next.done) return { events, turn: next.value };
    events.push(next.value);
  }
}

describe('streamModelTurn', () => {
  it('streams text into one assistant message and skips empty deltas', async () => {
    const { events, turn } = await play([
      { type: 'text', text: '' },
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
    ]);
    expect(turn).toMatchObject({ text: 'Hello', toolCalls: [] });
  });

  it('keeps interleaved tool calls apart by index and parents them to the turn message', async () => {
    const { events, turn } = await play([
      { type: 'tool_call', index: 0, id: 'a', name: 'first', arguments: '{"x"' },
      { type: 'tool_call', index: 1, id: 'b', name: 'second' },
      { type: 'tool_call', index: 0, arguments: ':1}' },
      { type: 'tool_call', index: 1, arguments: '{}' },
    ]);
    expect(turn.toolCalls).toEqual([
      { id: 'a', name: 'first', arguments: '{"x":1}' },
      { id: 'b', name: 'second', arguments: '{}' },
    ]);
    expect(events.filter((event) => event.type === EventType.TOOL_CALL_START)).toEqual([
      { type: EventType.TOOL_CALL_START, toolCallId: 'a', toolCallName: 'first', parentMessageId: turn.messageId },
      { type: EventType.TOOL_CALL_START, toolCallId: 'b', toolCallName: 'second', parentMessageId: turn.messageId },
    ]);
    expect(events.slice(-2).map((event) => event.type)).toEqual([EventType.TOOL_CALL_END, EventType.TOOL_CALL_END]);
  });

  it('holds arguments back until the name arrives, makes up a missing id, and drops nameless calls', async () => {
    const { events, turn } = await play([
      { type: 'tool_call', index: 0, arguments: '{"q":' },
      { type: 'tool_call', index: 0, name: 'search', arguments: '"x"}' },
      { type: 'tool_call', index: 1, arguments: '{}' },
    ]);
    expect(turn.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'search', arguments: '{"q":"x"}' }]);
    expect(events.map((event) => event.type)).toEqual([
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
    ]);
    expect(events[1]).toMatchObject({ delta: '{"q":"x"}' });
  });
});
