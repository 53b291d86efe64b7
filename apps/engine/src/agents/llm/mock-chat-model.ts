// A deterministic model for demos and tests, needing no provider:
//   "hello"                       → "You said: hello", streamed word by word
//   "call <tool> {json args}"     → a call of that tool (its full name, or the part after "<server>__")
//   a tool result as last message → "The tool answered: <result>"
import { randomUUID } from 'node:crypto';
import type { ChatMessage, ChatModel, ChatTool, ModelDelta } from './chat-model.js';

const CALL = /^call\s+(\S+)\s*([\s\S]*)$/;

function joinText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
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
      for (const delta of answer(messages, tools)) {
        signal.throwIfAborted();
        yield delta;
      }
    },
  };
}
