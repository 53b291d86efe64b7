// What the LLM agent needs from a model provider: one streamed chat turn, as text and tool-call deltas.

import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { TokenUsage } from '../agent-runtime.js';

// The OpenAI chat shapes are the lingua franca of tool-calling models, so the agent speaks them to every provider.
export type ChatMessage = ChatCompletionMessageParam;
export type ChatTool = ChatCompletionFunctionTool;

export type ModelDelta =
  | { type: 'text'; text: string }
  /** The provider's count for the whole call, after its last content delta. */
  | ({ type: 'usage' } & TokenUsage)
  /** Tool calls stream by index: the first delta of an index usually carries id and name, later ones argument text. */
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments?: string };

export type ChatRequest = { messages: ChatMessage[]; tools: ChatTool[]; signal: AbortSignal };

export type ChatModel = { stream: (request: ChatRequest) => AsyncIterable<ModelDelta> };
