// Rebuilds the AG-UI messages a run produced from its events, so a finished run can be stored in its
// conversation thread and sent on a messaging app: assistant text, tool calls (on the assistant
// message they belong to) and tool results.
import { type AssistantMessage, type BaseEvent, EventType, type Message, type ToolMessage } from '@ag-ui/core';

type Field<T> = { [key: string]: unknown } & T;

export type MessageCollector = {
  observe: (event: BaseEvent) => void;
  /** The messages so far, in the order they started. */
  messages: () => Message[];
  /** The assistant's text, one paragraph per text message. */
  text: () => string;
};

export function createMessageCollector(): MessageCollector {
  const messages: Message[] = [];
  const assistants = new Map<string, AssistantMessage>();
  const toolCalls = new Map<string, { function: { arguments: string } }>();

  const assistant = (id: string): AssistantMessage => {
    let message = assistants.get(id);
    if (message === undefined) {
      message = { id, role: 'assistant' };
      assistants.set(id, message);
      messages.push(message);
    }
    return message;
  };

  return {
    observe: (event) => {
      const fields = event as Field<Record<string, string | undefined>>;
      switch (event.type) {
        case EventType.TEXT_MESSAGE_START:
          assistant(String(fields.messageId));
          break;
        case EventType.TEXT_MESSAGE_CONTENT: {
          const message = assistant(String(fields.messageId));
          message.content = (message.content ?? '') + (fields.delta ?? '');
          break;
        }
        case EventType.TOOL_CALL_START: {
          const message = assistant(String(fields.parentMessageId ?? fields.toolCallId));
          const call = {
            id: String(fields.toolCallId),
            type: 'function' as const,
            function: { name: String(fields.toolCallName), arguments: '' },
          };
          message.toolCalls = [...(message.toolCalls ?? []), call];
          toolCalls.set(call.id, call);
          break;
        }
        case EventType.TOOL_CALL_ARGS: {
          const call = toolCalls.get(String(fields.toolCallId));
          if (call !== undefined) call.function.arguments += fields.delta ?? '';
          break;
        }
        case EventType.TOOL_CALL_RESULT: {
          const result: ToolMessage = {
            id: String(fields.messageId),
            role: 'tool',
            toolCallId: String(fields.toolCallId),
            content: String(fields.content ?? ''),
          };
          messages.push(result);
          break;
        }
        default:
          break;
      }
    },
    messages: () => messages,
    text: () =>
      messages
        .flatMap((message) =>
          message.role === 'assistant' && typeof message.content === 'string' && message.content.trim() !== ''
            ? [message.content.trim()]
            : [],
        )
        .join('\n\n'),
  };
}
