// A conversation kept in a thread, as a dataset item: what was said up to the last user message is the
// input, and the assistant's last reply after it is what a good answer says. The console builds items
// from the threads a user picks; what the engine keeps beyond AG-UI's five roles (activities, reasoning)
// and user content other than text are left out.
import type { TDatasetItemInput, TDatasetMessage } from './dataset.js';

/** A message as the engine's thread endpoint returns it (an AG-UI message, loosely). */
export type ThreadMessage = { role: string; content?: unknown; id?: string; toolCalls?: unknown; toolCallId?: unknown };

function textOf(content: unknown): string | undefined {
  return typeof content === 'string' ? content : undefined;
}

function toDatasetMessage(message: ThreadMessage): TDatasetMessage | undefined {
  const content = textOf(message.content);
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user':
      return content === undefined ? undefined : { role: message.role, content };
    case 'assistant': {
      const toolCalls =
        Array.isArray(message.toolCalls) && message.toolCalls.length > 0 ? message.toolCalls : undefined;
      if (content === undefined && toolCalls === undefined) return undefined;
      return {
        role: 'assistant',
        ...(content === undefined ? {} : { content }),
        ...(toolCalls === undefined
          ? {}
          : { toolCalls: toolCalls as NonNullable<Extract<TDatasetMessage, { role: 'assistant' }>['toolCalls']> }),
      };
    }
    case 'tool':
      return content === undefined || typeof message.toolCallId !== 'string'
        ? undefined
        : { role: 'tool', content, toolCallId: message.toolCallId };
    default:
      return undefined;
  }
}

/** The item a thread makes, or undefined for a thread without a user message. */
export function threadToDatasetItem(
  messages: readonly ThreadMessage[],
  metadata: Record<string, unknown> | null = null,
): TDatasetItemInput | undefined {
  const lastUser = messages.findLastIndex(
    (message) => message.role === 'user' && textOf(message.content) !== undefined,
  );
  if (lastUser < 0) return undefined;
  const input = messages.slice(0, lastUser + 1).flatMap((message) => toDatasetMessage(message) ?? []);
  const reply = messages
    .slice(lastUser + 1)
    .findLast((message) => message.role === 'assistant' && (textOf(message.content) ?? '') !== '');
  return { input, expected: reply === undefined ? null : { reply: textOf(reply.content) as string }, metadata };
}
