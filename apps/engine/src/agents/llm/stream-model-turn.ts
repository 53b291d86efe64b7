// One model turn as AG-UI events: text deltas into one assistant text message, tool-call deltas into
// TOOL_CALL_START/ARGS/END parented to that message. Returns what the turn said, for the next turn.
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType } from '@ag-ui/core';
import type { TokenUsage } from '../agent-runtime.js';
import type { ModelDelta } from './chat-model.js';

export type TurnToolCall = { id: string; name: string; arguments: string };
export type ModelTurn = { messageId: string; text: string; toolCalls: TurnToolCall[]; usage?: TokenUsage };

type CallState = TurnToolCall & { started: boolean };

export async function* streamModelTurn(deltas: AsyncIterable<ModelDelta>): AsyncGenerator<BaseEvent, ModelTurn> {
  const messageId = randomUUID();
  let text = '';
  let textOpen = false;
  const calls = new Map<number, CallState>();
  let usage: TokenUsage | undefined;

  for await (const delta of deltas) {
    if (delta.type === 'usage') {
      usage = { inputTokens: delta.inputTokens, outputTokens: delta.outputTokens };
      continue;
    }
    if (delta.type === 'text') {
      if (delta.text === '') continue;
      if (!textOpen) {
        textOpen = true;
        yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
      }
      text += delta.text;
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: delta.text };
      continue;
    }
    let call = calls.get(delta.index);
    if (call === undefined) {
      // Some compatible servers send no id; the client still needs one to answer the call.
      call = { id: delta.id ?? `call_${randomUUID()}`, name: '', arguments: '', started: false };
      calls.set(delta.index, call);
    }
    call.name ||= delta.name ?? '';
    const argumentsDelta = delta.arguments ?? '';
    call.arguments += argumentsDelta;
    if (!call.started && call.name !== '') {
      call.started = true;
      yield {
        type: EventType.TOOL_CALL_START,
        toolCallId: call.id,
        toolCallName: call.name,
        parentMessageId: messageId,
      };
      // Argument text that arrived before the name is sent now, in one piece.
      if (call.arguments !== '') yield { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: call.arguments };
    } else if (call.started && argumentsDelta !== '') {
      yield { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: argumentsDelta };
    }
  }

  if (textOpen) yield { type: EventType.TEXT_MESSAGE_END, messageId };
  const toolCalls: TurnToolCall[] = [];
  for (const { started, ...call } of calls.values()) {
    // A call that never got a name cannot be run or answered; it is dropped.
    if (!started) continue;
    yield { type: EventType.TOOL_CALL_END, toolCallId: call.id };
    toolCalls.push(call);
  }
  return { messageId, text, toolCalls, ...(usage === undefined ? {} : { usage }) };
}
