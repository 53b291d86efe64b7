// AG-UI messages to the OpenAI chat shapes, with the agent's instructions and the run's context up front.
import { type ContentPart, contentToText, type Message, type RunAgentInput, type Tool } from '@ag-ui/core';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { ChatMessage, ChatTool } from './chat-model.js';

function toUserContent(content: string | ContentPart[]): string | ChatCompletionContentPart[] {
  if (typeof content === 'string') return content;
  const parts = content.flatMap((part): ChatCompletionContentPart[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'image' && part.source.type === 'url') {
      return [{ type: 'image_url', image_url: { url: part.source.value } }];
    }
    if (part.type === 'image' && part.source.type === 'data') {
      return [{ type: 'image_url', image_url: { url: `data:${part.source.mimeType};base64,${part.source.value}` } }];
    }
    // Audio, video, documents and provider file handles have no portable chat-completions form.
    return [];
  });
  return parts.every((part) => part.type === 'text') ? contentToText(content) : parts;
}

function toChatMessage(message: Message): ChatMessage[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: toUserContent(message.content) }];
    case 'assistant':
      return [
        {
          role: 'assistant',
          content: message.content ?? null,
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.function.name, arguments: call.function.arguments },
                })),
              }
            : {}),
        },
      ];
    case 'tool':
      return [
        { role: 'tool', tool_call_id: message.toolCallId, content: message.error ?? contentToText(message.content) },
      ];
    // Many OpenAI-compatible servers know no "developer" role; "system" means the same to them.
    case 'system':
    case 'developer':
      return [{ role: 'system', content: message.content }];
    // Activity and reasoning messages are UI state, not conversation.
    default:
      return [];
  }
}

function describeContext(input: RunAgentInput): string {
  if (input.context.length === 0) return '';
  return `Context:\n${input.context.map((item) => `- ${item.description}: ${item.value}`).join('\n')}`;
}

export function toChatMessages(input: RunAgentInput, instructions: string | undefined): ChatMessage[] {
  const system = [instructions ?? '', describeContext(input)].filter((part) => part !== '').join('\n\n');
  return [
    ...(system === '' ? [] : [{ role: 'system' as const, content: system }]),
    ...input.messages.flatMap(toChatMessage),
  ];
}

export function toChatTool(tool: Pick<Tool, 'name' | 'description' | 'parameters'>): ChatTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: (tool.parameters as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
    },
  };
}
