// Every tool call of the model's needs a result before the model is called again: chat-completions
// servers refuse a history with one missing. A call can be left without one: it waited for an approval
// that never came (the thread's next run sent no `resume`, or the interrupt expired), or a client never
// sent back its own tool's result. Such a call gets a result that says so. It is not stored with the
// thread, so an answer that comes later still takes its place.
import type { ChatMessage } from './chat-model.js';

export const UNANSWERED_CALL =
  'The call was not made: nobody answered it (an approval never given, or given too late).';

/** After the results its assistant message already has: a result joins those of its turn. */
export function insertToolMessage(messages: ChatMessage[], message: ChatMessage & { role: 'tool' }): void {
  const turn = messages.findLastIndex(
    (candidate) =>
      candidate.role === 'assistant' && (candidate.tool_calls ?? []).some((call) => call.id === message.tool_call_id),
  );
  if (turn === -1) {
    messages.push(message);
    return;
  }
  let at = turn + 1;
  while (messages[at]?.role === 'tool') at++;
  messages.splice(at, 0, message);
}

/** Gives each tool call without a result in `messages` the result UNANSWERED_CALL, beside its turn's others. */
export function answerUnansweredCalls(messages: ChatMessage[]): void {
  const answered = new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])));
  const unanswered = messages.flatMap((message) =>
    message.role === 'assistant' ? (message.tool_calls ?? []).filter((call) => !answered.has(call.id)) : [],
  );
  for (const call of unanswered) {
    insertToolMessage(messages, { role: 'tool', tool_call_id: call.id, content: UNANSWERED_CALL });
  }
}
