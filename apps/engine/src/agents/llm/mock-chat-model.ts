// A deterministic model for demos and tests, needing no provider:
//   "hello"                       → "You said: hello", streamed word by word
//   "call <tool> {json args}"     → a call of that tool (its full name, or the part after "<server>__")
//   a tool result as last message → "The tool answered: <result>"
// Its usage is as deterministic, so a scripted workload has exact expected figures: input tokens are
// the whitespace-separated words of the text of every message it was given (tool definitions and
// tool-call arguments not counted), output tokens the deltas it streamed (a word each, 1 for a tool call).
import { randomUUID } from 'node:crypto';
import type { ChatMessage, ChatModel, ChatTool, ModelDelta } from './chat-model.js';

const CALL = /^call\s+(\S+)\s*([\s\S]*)$/;

function joinText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
}

function countWords(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + (joinText(message).match(/\S+/g)?.length ?? 0), 0);
}

function* streamWords(text: string): Generator<ModelDelta> {
  for (const word of text.match(/\S+\s*/g) ?? []) yield { type: 'text', text: word };
}

function findTool(tools: ChatTool[], requested: string): ChatTool | undefined {
  return (
    tools.find((tool) => tool.function.name === requested) ??
    tools.find((tool) => tool.function.name.endsWith(`__${requested}`))
  );
}

function* answer(messages: ChatMessage[], tools: ChatTool[]): Generator<ModelDelta> {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    yield* streamWords(`The tool answered: ${joinText(last)}`);
    return;
  }
  const said = joinText(messages.findLast((message) => message.role === 'user')).trim();
  const call = CALL.exec(said);
  if (call === null) {
    yield* streamWords(`You said: ${said}`);
    return;
  }
  const [, requested = '', args] = call;
  const tool = findTool(tools, requested);
  if (tool === undefined) {
    yield* streamWords(`There is no tool named ${requested}.`);
    return;
  }
  yield { type: 'tool_call', index: 0, id: `call_${randomUUID()}`, name: tool.function.name, arguments: args || '{}' };
}

export function createMockChatModel(): ChatModel {
  return {
    async *stream({ messages, tools, signal }) {
      let outputTokens = 0;
      for (const delta of answer(messages, tools)) {
        signal.throwIfAborted();
        outputTokens++;
        yield delta;
      }
      yield { type: 'usage', inputTokens: countWords(messages), outputTokens };
    },
  };
}
