// A run's AG-UI events folded into what happened, in order: each model call (its text and the tool
// calls it asked for), each tool call with its arguments and its result, the graph's steps, errors, and
// how the run ended. An LLM agent's model call is one assistant message: its text and its tool calls
// share that message's id. Times come from the events' own `timestamp`, where the agent set one.
import type { RunEvent } from './run-events';

export type ModelCallEntry = {
  kind: 'model-call';
  key: string;
  number: number;
  text: string;
  toolCalls: string[];
  firstAt?: number;
  lastAt?: number;
};
export type ToolCallEntry = {
  kind: 'tool-call';
  key: string;
  name: string;
  arguments: string;
  result?: string;
  firstAt?: number;
  lastAt?: number;
};
export type StepEntry = {
  kind: 'step';
  key: string;
  name: string;
  finished: boolean;
  firstAt?: number;
  lastAt?: number;
};
export type ErrorEntry = { kind: 'error'; key: string; message: string; code?: string };
export type EndEntry = { kind: 'end'; key: string; outcome: string };

export type TimelineEntry = ModelCallEntry | ToolCallEntry | StepEntry | ErrorEntry | EndEntry;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function stamp(entry: { firstAt?: number; lastAt?: number }, event: RunEvent): void {
  if (typeof event.timestamp !== 'number') return;
  entry.firstAt ??= event.timestamp;
  entry.lastAt = event.timestamp;
}

export function buildTimeline(events: readonly RunEvent[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const modelCalls = new Map<string, ModelCallEntry>();
  const toolCalls = new Map<string, ToolCallEntry>();
  const steps = new Map<string, StepEntry>();

  const modelCall = (messageId: string): ModelCallEntry => {
    let entry = modelCalls.get(messageId);
    if (entry === undefined) {
      entry = { kind: 'model-call', key: `model:${messageId}`, number: modelCalls.size + 1, text: '', toolCalls: [] };
      modelCalls.set(messageId, entry);
      entries.push(entry);
    }
    return entry;
  };

  for (const event of events) {
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK': {
        if (typeof event.messageId !== 'string') break;
        if (event.role !== undefined && event.role !== 'assistant') break;
        const entry = modelCall(event.messageId);
        entry.text += text(event.delta);
        stamp(entry, event);
        break;
      }
      case 'TOOL_CALL_START':
      case 'TOOL_CALL_CHUNK': {
        const id = text(event.toolCallId);
        if (id === '' || toolCalls.has(id)) break;
        const parent = text(event.parentMessageId);
        const entry: ToolCallEntry = {
          kind: 'tool-call',
          key: `tool:${id}`,
          name: text(event.toolCallName),
          arguments: '',
        };
        if (parent !== '') {
          const call = modelCall(parent);
          call.toolCalls.push(entry.name);
          stamp(call, event);
        }
        toolCalls.set(id, entry);
        entries.push(entry);
        entry.arguments += text(event.delta);
        stamp(entry, event);
        break;
      }
      case 'TOOL_CALL_ARGS': {
        const entry = toolCalls.get(text(event.toolCallId));
        if (entry === undefined) break;
        entry.arguments += text(event.delta);
        stamp(entry, event);
        break;
      }
      case 'TOOL_CALL_RESULT': {
        const entry = toolCalls.get(text(event.toolCallId));
        if (entry === undefined) break;
        entry.result = text(event.content);
        stamp(entry, event);
        break;
      }
      case 'STEP_STARTED':
      case 'STEP_FINISHED': {
        const name = text(event.stepName);
        let entry = steps.get(name);
        if (entry === undefined || (event.type === 'STEP_STARTED' && entry.finished)) {
          entry = { kind: 'step', key: `step:${entries.length}`, name, finished: false };
          steps.set(name, entry);
          entries.push(entry);
        }
        entry.finished ||= event.type === 'STEP_FINISHED';
        stamp(entry, event);
        break;
      }
      case 'RUN_ERROR':
        entries.push({
          kind: 'error',
          key: `error:${entries.length}`,
          message: text(event.message),
          ...(typeof event.code === 'string' ? { code: event.code } : {}),
        });
        break;
      case 'RUN_FINISHED': {
        const outcome = (event.outcome as { type?: string } | undefined)?.type ?? 'success';
        entries.push({ kind: 'end', key: `end:${entries.length}`, outcome });
        break;
      }
    }
  }
  return entries;
}

/** How long an entry took, from its events' timestamps; undefined without two of them. */
export function entryDuration(entry: { firstAt?: number; lastAt?: number }): number | undefined {
  return entry.firstAt === undefined || entry.lastAt === undefined ? undefined : entry.lastAt - entry.firstAt;
}
