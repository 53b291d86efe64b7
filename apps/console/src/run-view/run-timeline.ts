// A run's AG-UI events folded into what happened, in order: each model call (its text and the tool
// calls it asked for), each tool call with its arguments and its result, the graph's steps, errors, and
// how the run ended. An LLM agent's model call is one assistant message: its text and its tool calls
// share that message's id. An entry ends with the last of its events the engine stored, and took the
// time since the entry before it ended (since the run started, for the first): an agent's steps follow
// one another. The engine stores events in batches of up to 50 ms, so times are that coarse.
import type { StoredRunEvent } from './run-events';

/** When an entry's last event was stored, and how long it took (ms since epoch, ms). */
type Timed = { endedAt?: number; tookMs?: number };

export type ModelCallEntry = {
  kind: 'model-call';
  key: string;
  number: number;
  text: string;
  toolCalls: string[];
} & Timed;
export type ToolCallEntry = {
  kind: 'tool-call';
  key: string;
  name: string;
  arguments: string;
  result?: string;
} & Timed;
export type StepEntry = {
  kind: 'step';
  key: string;
  name: string;
  finished: boolean;
} & Timed;
export type ErrorEntry = { kind: 'error'; key: string; message: string; code?: string };
export type EndEntry = { kind: 'end'; key: string; outcome: string };

export type TimelineEntry = ModelCallEntry | ToolCallEntry | StepEntry | ErrorEntry | EndEntry;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Each timed entry's duration: from the end of the one before (or the run's start) to its own end. */
function measure(entries: TimelineEntry[], startedAt: number | undefined): void {
  let previousEnd = startedAt;
  for (const entry of entries) {
    const timed = entry as Timed;
    if (timed.endedAt === undefined) continue;
    if (previousEnd !== undefined) timed.tookMs = Math.max(0, timed.endedAt - previousEnd);
    previousEnd = timed.endedAt;
  }
}

export function buildTimeline(stored: readonly StoredRunEvent[], startedAt?: number): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const modelCalls = new Map<string, ModelCallEntry>();
  const toolCalls = new Map<string, ToolCallEntry>();
  const steps = new Map<string, StepEntry>();
  const askedBy = new Map<string, Timed>();

  const modelCall = (messageId: string): ModelCallEntry => {
    let entry = modelCalls.get(messageId);
    if (entry === undefined) {
      entry = { kind: 'model-call', key: `model:${messageId}`, number: modelCalls.size + 1, text: '', toolCalls: [] };
      modelCalls.set(messageId, entry);
      entries.push(entry);
    }
    return entry;
  };

  for (const { event, stored_at } of stored) {
    const at = Date.parse(stored_at);
    const stamp = (entry: Timed) => {
      entry.endedAt = at;
    };
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_END':
      case 'TEXT_MESSAGE_CHUNK': {
        if (typeof event.messageId !== 'string') break;
        if (event.role !== undefined && event.role !== 'assistant') break;
        const entry = modelCall(event.messageId);
        entry.text += text(event.delta);
        stamp(entry);
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
          arguments: text(event.delta),
        };
        // The call is the model's output: its start, arguments and end are the model call's time.
        const call = parent === '' ? undefined : modelCall(parent);
        call?.toolCalls.push(entry.name);
        toolCalls.set(id, entry);
        askedBy.set(id, call ?? entry);
        entries.push(entry);
        stamp(call ?? entry);
        break;
      }
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_END': {
        const id = text(event.toolCallId);
        const entry = toolCalls.get(id);
        if (entry === undefined) break;
        entry.arguments += text(event.delta);
        const asker = askedBy.get(id);
        if (asker) stamp(asker);
        break;
      }
      case 'TOOL_CALL_RESULT': {
        const entry = toolCalls.get(text(event.toolCallId));
        if (entry === undefined) break;
        entry.result = text(event.content);
        stamp(entry);
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
        stamp(entry);
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
  measure(entries, startedAt);
  return entries;
}
