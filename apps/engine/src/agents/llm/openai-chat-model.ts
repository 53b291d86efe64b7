// Any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama, LM Studio…) through the openai SDK.
import OpenAI from 'openai';
import { EGRESS_ALLOW_HINT, isEgressRefusal } from '../../egress/egress-policy.js';
import { AgentRunError } from '../agent-runtime.js';
import type { ChatModel, ModelDelta } from './chat-model.js';

export type OpenAiChatModelOptions = {
  model: string;
  /** Undefined: the requests carry no Authorization header at all. */
  apiKey: string | undefined;
  baseUrl: string;
  temperature: number | undefined;
  /** The egress policy's fetch when the URL is the tenant's choice (a config `baseUrl`). */
  fetch?: typeof globalThis.fetch | undefined;
};

function toModelError(error: unknown): AgentRunError {
  const message = isEgressRefusal(error)
    ? `The model provider's address is refused by the engine's egress policy; ${EGRESS_ALLOW_HINT}.`
    : 'The model provider failed.';
  return new AgentRunError(message, 'model_error', { cause: error });
}

export function createOpenAiChatModel({
  model,
  apiKey,
  baseUrl,
  temperature,
  fetch,
}: OpenAiChatModelOptions): ChatModel {
  // One client per applied config: it keeps its connection pool across runs. Every option the SDK would
  // otherwise read from the engine's environment (OPENAI_API_KEY, OPENAI_ADMIN_KEY, OPENAI_ORG_ID…) is
  // given, so nothing from the environment reaches a server the tenant chose. The SDK insists on a key;
  // without one, the placeholder is never sent because the Authorization header is dropped.
  const client = new OpenAI({
    apiKey: apiKey ?? 'none',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    baseURL: baseUrl,
    maxRetries: 1,
    ...(apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
    ...(fetch === undefined ? {} : { fetch }),
  });
  return {
    async *stream({ messages, tools, signal }): AsyncGenerator<ModelDelta> {
      try {
        const stream = await client.chat.completions.create(
          {
            model,
            messages,
            stream: true,
            // The usage arrives in one last chunk; the run record keeps it (and a budget can count it).
            stream_options: { include_usage: true },
            ...(tools.length > 0 ? { tools } : {}),
            ...(temperature === undefined ? {} : { temperature }),
          },
          { signal },
        );
        for await (const chunk of stream) {
          if (chunk.usage) {
            yield {
              type: 'usage',
              inputTokens: chunk.usage.prompt_tokens,
              outputTokens: chunk.usage.completion_tokens,
            };
          }
          const delta = chunk.choices[0]?.delta;
          if (delta === undefined) continue;
          if (delta.content) yield { type: 'text', text: delta.content };
          for (const call of delta.tool_calls ?? []) {
            yield {
              type: 'tool_call',
              index: call.index,
              ...(call.id ? { id: call.id } : {}),
              ...(call.function?.name ? { name: call.function.name } : {}),
              ...(call.function?.arguments ? { arguments: call.function.arguments } : {}),
            };
          }
        }
      } catch (error) {
        // Aborted by the client: nobody is listening, so the original error just ends the run.
        if (signal.aborted) throw error;
        throw toModelError(error);
      }
    },
  };
}
