// AG-UI messages to LangChain messages, and which of a run's messages are new to the graph's thread.
import { contentToText, type Message } from '@ag-ui/core';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function toLangChainMessage(message: Message): BaseMessage | undefined {
  switch (message.role) {
    case 'user':
      return new HumanMessage({ id: message.id, content: contentToText(message.content) });
    case 'assistant':
      return new AIMessage({
        id: message.id,
        content: message.content ?? '',
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          args: parseArguments(call.function.arguments),
          type: 'tool_call' as const,
        })),
      });
    case 'tool':
      return new ToolMessage({
        id: message.id,
        tool_call_id: message.toolCallId,
        content: message.error ?? contentToText(message.content),
        ...(message.error === undefined ? {} : { status: 'error' as const }),
      });
    case 'system':
    case 'developer':
      return new SystemMessage({ id: message.id, content: message.content });
    // Activity and reasoning messages are UI state, not conversation.
    default:
      return undefined;
  }
}

/** What a thread's checkpoint already holds: message ids and the tool calls that have their result. */
export type RememberedThread = { messageIds: ReadonlySet<string>; answeredToolCalls: ReadonlySet<string> };

export function readRememberedThread(messages: unknown): RememberedThread | undefined {
  if (!Array.isArray(messages)) return undefined;
  const messageIds = new Set<string>();
  const answeredToolCalls = new Set<string>();
  for (const message of messages as { id?: unknown; tool_call_id?: unknown }[]) {
    if (typeof message?.id === 'string') messageIds.add(message.id);
    if (typeof message?.tool_call_id === 'string') answeredToolCalls.add(message.tool_call_id);
  }
  return { messageIds, answeredToolCalls };
}

/**
 * The messages to give the graph. A thread without a checkpoint gets the client's whole history. A
 * thread the graph already remembers gets only what it has not seen: messages whose id it does not
 * hold, never assistant messages (the graph wrote them itself, and the client may know them under
 * another id), and tool results only for calls still unanswered (a frontend tool's result), so history
 * sent again is not added twice.
 */
export function selectNewMessages(messages: readonly Message[], thread: RememberedThread | undefined): BaseMessage[] {
  const isNew = (message: Message) => {
    if (thread === undefined) return true;
    if (message.role === 'assistant' || thread.messageIds.has(message.id)) return false;
    return message.role !== 'tool' || !thread.answeredToolCalls.has(message.toolCallId);
  };
  return messages.filter(isNew).flatMap((message) => toLangChainMessage(message) ?? []);
}
