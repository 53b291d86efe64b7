// What a finished run did, read back from its record: the final assistant reply (the text deltas of the
// last assistant message that had any), its tool calls with their arguments parsed, its latency and
// its tokens. Pure, so that it is tested on event lists as the engine writes them.
import { SAMPLE_TOOL_CALLS_MAX_ITEMS, type TScoringObservation } from '@agentplane/contracts';

export type RunRecord = {
  events: string[];
  usage: unknown;
  startedAt: Date | null;
  finishedAt: Date | null;
};

/** As scorers read it, but the reply whole: the caller cuts it to what it keeps or grades. */
export type RunObservation = TScoringObservation;

type ToolCall = { name: string; arguments: Record<string, unknown> };

function parseEvent(data: string): Record<string, unknown> | undefined {
  try {
    const event: unknown = JSON.parse(data);
    return typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A call's arguments as the scorers compare them: the JSON object sent, else the text under `value`. */
export function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return { value };
  } catch {
    return { value: text };
  }
}

function readText(events: Record<string, unknown>[]): string | null {
  const texts = new Map<string, string>();
  let last: string | undefined;
  for (const event of events) {
    if (event.type !== 'TEXT_MESSAGE_CONTENT' && event.type !== 'TEXT_MESSAGE_CHUNK') continue;
    const id = String(event.messageId ?? '');
    const delta = typeof event.delta === 'string' ? event.delta : '';
    if (delta === '') continue;
    texts.set(id, (texts.get(id) ?? '') + delta);
    last = id;
  }
  return last === undefined ? null : (texts.get(last) ?? null);
}

function readToolCalls(events: Record<string, unknown>[]): ToolCall[] {
  const calls = new Map<string, { name: string; args: string }>();
  for (const event of events) {
    const id = String(event.toolCallId ?? '');
    if (event.type === 'TOOL_CALL_START' && typeof event.toolCallName === 'string') {
      if (!calls.has(id)) calls.set(id, { name: event.toolCallName, args: '' });
    } else if (event.type === 'TOOL_CALL_ARGS' && typeof event.delta === 'string') {
      const call = calls.get(id);
      if (call !== undefined) call.args += event.delta;
    }
  }
  return [...calls.values()]
    .slice(0, SAMPLE_TOOL_CALLS_MAX_ITEMS)
    .map((call) => ({ name: call.name, arguments: parseArguments(call.args) }));
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function readTokens(usage: unknown): TScoringObservation['tokens'] {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const input = count(record.input_tokens);
  const output = count(record.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  return { input, output, total: count(record.total_tokens) ?? input + output };
}

/** The run's last RUN_ERROR: a run the engine lost has its code here alone (its record holds the message). */
export function readRunError(eventData: string[]): { message: string | null; code: string | null } | undefined {
  const event = eventData.map(parseEvent).findLast((parsed) => parsed?.type === 'RUN_ERROR');
  if (event === undefined) return undefined;
  return {
    message: typeof event.message === 'string' ? event.message : null,
    code: typeof event.code === 'string' ? event.code : null,
  };
}

export function observeRun(run: RunRecord): RunObservation {
  const events = run.events.map(parseEvent).filter((event) => event !== undefined);
  const text = readText(events);
  const tokens = readTokens(run.usage);
  const latency =
    run.startedAt !== null && run.finishedAt !== null
      ? Math.max(0, run.finishedAt.getTime() - run.startedAt.getTime())
      : undefined;
  return {
    reply: text,
    tool_calls: readToolCalls(events),
    ...(latency === undefined ? {} : { latency_ms: latency }),
    ...(tokens === undefined ? {} : { tokens }),
  };
}
