import { describe, expect, it } from '@jest/globals';
import type { ChatMessage, ChatTool, ModelDelta } from './chat-model.js';
import { createMockChatModel } from './mock-chat-model.js';

const echoTool: ChatTool = { type: 'function', function: { name: 'everything__echo', parameters: {} } };

async function stream(messages: ChatMessage[], tools: ChatTool[] = []): Promise<ModelDelta[]> {
  const deltas: ModelDelta[] = [];
  for await (const delta of createMockChatModel().stream({ messages, tools, signal: new AbortController().signal })) {
    deltas.push(delta);
  }
  return deltas;
}

/** What it answered, without its usage report. */
const answer = async (messages: ChatMessage[], tools: ChatTool[] = []) =>
  (await stream(messages, tools)).filter((delta) => delta.type !== 'usage');

const text = (deltas: ModelDelta[]) => deltas.map((delta) => (delta.type === 'text' ? delta.text : '')).join('');

describe('the mock model', () => {
  it('repeats the last user message, word by word', async () => {
    const deltas = await answer([
      { role: 'user', content: 'first' },
      { role: 'user', content: 'hello there' },
    ]);
    expect(deltas).toHaveLength(4);
    expect(text(deltas)).toBe('You said: hello there');
  });

  it('calls a tool by its short or full name when asked to, with the given arguments', async () => {
    for (const requested of ['echo', 'everything__echo']) {
      expect(await answer([{ role: 'user', content: `call ${requested} {"message":"hi"}` }], [echoTool])).toEqual([
        {
          type: 'tool_call',
          index: 0,
          id: expect.stringMatching(/^call_/),
          name: 'everything__echo',
          arguments: '{"message":"hi"}',
        },
      ]);
    }
    expect(text(await answer([{ role: 'user', content: 'call nothing' }], [echoTool]))).toBe(
      'There is no tool named nothing.',
    );
  });

  it('reports a tool result it is given', async () => {
    const deltas = await answer([{ role: 'tool', tool_call_id: 'c', content: 'Echo: hi' }]);
    expect(text(deltas)).toBe('The tool answered: Echo: hi');
  });

  it('reports its usage last: the words of every message it was given in, a token per streamed delta out', async () => {
    const spoken = await stream([
      { role: 'system', content: 'Be  brief.' },
      { role: 'user', content: [{ type: 'text', text: 'hello there' }] },
    ]);
    expect(spoken.at(-1)).toEqual({ type: 'usage', inputTokens: 4, outputTokens: 4 });
    const call = await stream([{ role: 'user', content: 'call echo {"message": "hi"}' }], [echoTool]);
    expect(call.at(-1)).toEqual({ type: 'usage', inputTokens: 4, outputTokens: 1 });
  });
});
