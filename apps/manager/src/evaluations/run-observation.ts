// A finished run as a scorer sees it, read from the engine's records: its reply and tool calls from
// run_events (the AG-UI events it streamed), its latency and tokens from agent_runs, and the messages it
// answered from its input. Shared by whatever grades runs after the fact (online scoring, experiments),
// so that both read a run the same way. Everything is bounded to what a scoring sample may hold.
import {
  IDENTIFIER_MAX_LENGTH,
  SAMPLE_MESSAGES_MAX_ITEMS,
  SAMPLE_TEXT_MAX_LENGTH,
  SAMPLE_TOOL_CALLS_MAX_ITEMS,
  type TRunStatus,
  type TScoringObservation,
  type TScoringSample,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';

/** Events read per run: far more than a run's reply needs; a run past it is graded on its beginning. */
export const RUN_EVENTS_READ_MAX = 20_000;

export type ObservedRun = {
  status: TRunStatus;
  errorCode: string | null;
  input: TScoringSample['input'];
  observation: TScoringObservation;
};

type RunRow = {
  status: TRunStatus;
  error_code: string | null;
  input: unknown;
  usage: unknown;
  latency_ms: number | null;
};

type AguiEvent = {
  type?: unknown;
  messageId?: unknown;
  role?: unknown;
  delta?: unknown;
  toolCallId?: unknown;
  toolCallName?: unknown;
};

const text = (value: string) => value.slice(0, SAMPLE_TEXT_MAX_LENGTH);
const asString = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The text of the last assistant message that has any, and every tool call with its parsed arguments. */
export function observeEvents(events: readonly string[]): Pick<TScoringObservation, 'reply' | 'tool_calls'> {
  const messages = new Map<string, { role: string; text: string }>();
  const calls = new Map<string, { name: string; args: string }>();
  let lastMessageId: string | undefined;
  for (const data of events) {
    let event: AguiEvent;
    try {
      event = JSON.parse(data) as AguiEvent;
    } catch {
      continue;
    }
    const messageId = asString(event.messageId) ?? lastMessageId;
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK': {
        if (messageId === undefined) break;
        lastMessageId = messageId;
        const message = messages.get(messageId) ?? { role: asString(event.role) ?? 'assistant', text: '' };
        // A message's text is bounded as it grows: a run may stream more than a sample can hold.
        if (typeof event.delta === 'string' && message.text.length < SAMPLE_TEXT_MAX_LENGTH) {
          message.text += event.delta;
        }
        messages.delete(messageId);
        messages.set(messageId, message);
        break;
      }
      case 'TOOL_CALL_START':
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_CHUNK': {
        const id = asString(event.toolCallId);
        if (id === undefined) break;
        const call = calls.get(id) ?? { name: asString(event.toolCallName) ?? '', args: '' };
        if (call.name === '') call.name = asString(event.toolCallName) ?? '';
        if (typeof event.delta === 'string' && call.args.length < SAMPLE_TEXT_MAX_LENGTH) call.args += event.delta;
        if (calls.size < SAMPLE_TOOL_CALLS_MAX_ITEMS || calls.has(id)) calls.set(id, call);
        break;
      }
    }
  }
  const replies = [...messages.values()].filter((message) => message.role === 'assistant' && message.text !== '');
  const reply = replies.at(-1);
  return {
    reply: reply === undefined ? null : text(reply.text),
    tool_calls: [...calls.values()]
      .filter((call) => call.name !== '')
      .map((call) => ({ name: call.name.slice(0, IDENTIFIER_MAX_LENGTH), arguments: parseArguments(call.args) })),
  };
}

function parseArguments(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const SCORING_ROLES: Record<string, TScoringSample['input'][number]['role']> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
};

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part !== null && typeof part === 'object' && 'text' in part ? asString(part.text) : undefined))
    .filter((part) => part !== undefined)
    .join('');
}

/** The run input's messages (an AG-UI RunAgentInput), the newest that a sample may hold. */
export function observeInput(input: unknown): TScoringSample['input'] {
  const messages = (input as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.slice(-SAMPLE_MESSAGES_MAX_ITEMS).flatMap((message: { role?: unknown; content?: unknown } | null) => {
    const role = SCORING_ROLES[asString(message?.role) ?? ''];
    return role === undefined ? [] : [{ role, content: text(contentText(message?.content)) }];
  });
}

function tokensOf(usage: unknown): TScoringObservation['tokens'] {
  const { input_tokens: input, output_tokens: output } = (usage ?? {}) as Record<string, unknown>;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const [inputTokens, outputTokens] = [count(input), count(output)];
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  const tokens = { input: inputTokens ?? 0, output: outputTokens ?? 0 };
  return { ...tokens, total: tokens.input + tokens.output };
}

/** The run as observed, or undefined when there is no such run. */
export async function readRunObservation(db: Db, agentId: string, runId: string): Promise<ObservedRun | undefined> {
  const [run] = await db.$queryRaw<RunRow[]>`
    SELECT status::text AS status, error_code, input, usage,
      (extract(epoch FROM finished_at - started_at) * 1000)::float8 AS latency_ms
    FROM agent_runs WHERE agent_id = ${agentId}::uuid AND id = ${runId}`;
  if (run === undefined) return undefined;
  const events = await db.$queryRaw<{ data: string }[]>`
    SELECT data FROM run_events WHERE agent_id = ${agentId}::uuid AND run_id = ${runId}
    ORDER BY seq LIMIT ${RUN_EVENTS_READ_MAX}`;
  const tokens = tokensOf(run.usage);
  return {
    status: run.status,
    errorCode: run.error_code,
    input: observeInput(run.input),
    observation: {
      ...observeEvents(events.map((event) => event.data)),
      ...(run.latency_ms === null ? {} : { latency_ms: Math.max(0, Math.round(run.latency_ms)) }),
      ...(tokens === undefined ? {} : { tokens }),
    },
  };
}
