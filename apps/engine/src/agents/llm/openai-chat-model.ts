// Any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama, LM Studio…) through the openai SDK.
import OpenAI from 'openai';
import { AgentRunError } from '../agent-runtime.js';
import type { ChatModel, ModelDelta } from './chat-model.js';

export type OpenAiChatModelOptions = {
  model: string;
  apiKey: string;
  baseUrl: string | undefined;
  temperature: number | undefined;
};

function toModelError(error: unknown): AgentRunError {
  const reason = error instanceof Error ? error.message : String(error);
  return new AgentRunError(`The model provider failed: ${reason}`, 'model_error');
}

export function createOpenAiChatModel({ model, apiKey, baseUrl, temperature }: OpenAiChatModelOptions): ChatModel {
  // One client per applied config: it keeps its connection pool across runs.
  const client = new OpenAI({ apiKey, baseURL: baseUrl ?? null, maxRetries: 1 });
  return {
    async *stream({ messages, tools, signal }): AsyncGenerator<ModelDelta> {
      try {
        const stream = await client.chat.completions.create(
          {
            model,
            messages,
            stream: true,
            ...(tools.length > 0 ? { tools } : {}),
            ...(temperature === undefined ? {} : { temperature }),
          },
          { signal },
        );
        for await (const chunk of stream) {
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
