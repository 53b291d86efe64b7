// The conversation as AG-UI messages: user and assistant text (growing as deltas stream in), the
// agent's reasoning, and each tool call with its arguments and, once it comes, its result.
import type { Message } from '@ag-ui/client';
import type { ReactNode } from 'react';

type ToolCall = { id: string; function: { name: string; arguments: string } };

export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function ToolCallView({ call, result, awaiting }: { call: ToolCall; result: string | undefined; awaiting: boolean }) {
  return (
    <article className="tool-call" aria-label={`Tool call ${call.function.name}`}>
      <h3>Tool call: {call.function.name}</h3>
      <h4>Arguments</h4>
      <pre>{prettyJson(call.function.arguments)}</pre>
      <h4>Result</h4>
      {result !== undefined ? (
        <pre>{prettyJson(result)}</pre>
      ) : awaiting ? (
        <p>Waiting for your approval.</p>
      ) : (
        <p aria-busy="true">Waiting for the result…</p>
      )}
    </article>
  );
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : '';

export function Transcript({
  messages,
  runLink,
  awaitingApproval,
}: {
  messages: Message[];
  /** The ids of the tool calls waiting for a human's approval. */
  awaitingApproval?: ReadonlySet<string>;
  /** A link to the run an assistant message came from, where it is known. */
  runLink?: (messageId: string) => ReactNode;
}) {
  const results = new Map(
    messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, textOf(message.content)]] : [])),
  );
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log must be focusable (axe scrollable-region-focusable), so that a keyboard scrolls a conversation with no links to tab to
    <div role="log" aria-label="Conversation" aria-live="polite" className="transcript" tabIndex={0}>
      {messages.length === 0 && <p className="note">Say something to the agent.</p>}
      {messages.map((message) => {
        switch (message.role) {
          case 'user':
            return (
              <p key={message.id} className="message user">
                <span className="who">You: </span>
                {textOf(message.content)}
              </p>
            );
          case 'assistant':
            return (
              <div key={message.id} className="message assistant">
                {textOf(message.content) && (
                  <p>
                    <span className="who">Agent: </span>
                    {textOf(message.content)}
                  </p>
                )}
                {(message.toolCalls ?? []).map((call) => (
                  <ToolCallView
                    key={call.id}
                    call={call}
                    result={results.get(call.id)}
                    awaiting={awaitingApproval?.has(call.id) ?? false}
                  />
                ))}
                {runLink?.(message.id)}
              </div>
            );
          case 'reasoning':
            return (
              <details key={message.id} className="message reasoning" open>
                <summary>Reasoning</summary>
                <p>{textOf(message.content)}</p>
              </details>
            );
          default:
            // Tool results show with their call; system and developer messages are the agent's own.
            return null;
        }
      })}
    </div>
  );
}
