// Holds any agent's event stream to the AG-UI order, whatever framework produced it: RUN_STARTED
// first, start/content/end pairs that match, no empty deltas, exactly one RUN_FINISHED or RUN_ERROR.
// A misbehaving or failing agent ends in RUN_ERROR rather than in a broken or hung stream. Every event
// comes out storable (storable-event.ts): this is where the engine takes them from the agent.
import { type BaseEvent, EventType } from '@ag-ui/core';
import type { Logger } from '@agentplane/server-kit';
import { AgentRunError } from '../agents/agent-runtime.js';
import { logFailure, withErrorId } from '../errors/log-failure.js';
import { toStorableEvent } from './storable-event.js';

type Run = { threadId: string; runId: string };

type Span = { kind: string; key: 'messageId' | 'toolCallId'; role: 'start' | 'delta' | 'end' };

// Events that open, continue and close a span, keyed by the id field that ties them together.
const SPANS: Partial<Record<EventType, Span>> = {
  [EventType.TEXT_MESSAGE_START]: { kind: 'text message', key: 'messageId', role: 'start' },
  [EventType.TEXT_MESSAGE_CONTENT]: { kind: 'text message', key: 'messageId', role: 'delta' },
  [EventType.TEXT_MESSAGE_END]: { kind: 'text message', key: 'messageId', role: 'end' },
  [EventType.TOOL_CALL_START]: { kind: 'tool call', key: 'toolCallId', role: 'start' },
  [EventType.TOOL_CALL_ARGS]: { kind: 'tool call', key: 'toolCallId', role: 'delta' },
  [EventType.TOOL_CALL_END]: { kind: 'tool call', key: 'toolCallId', role: 'end' },
  [EventType.REASONING_MESSAGE_START]: { kind: 'reasoning message', key: 'messageId', role: 'start' },
  [EventType.REASONING_MESSAGE_CONTENT]: { kind: 'reasoning message', key: 'messageId', role: 'delta' },
  [EventType.REASONING_MESSAGE_END]: { kind: 'reasoning message', key: 'messageId', role: 'end' },
};

const TERMINAL = new Set<string>([EventType.RUN_FINISHED, EventType.RUN_ERROR]);

class OrderViolation extends Error {}

// An agent's error message may quote what its model or a tool said.
function createRunError(message: string, code: string): BaseEvent {
  return toStorableEvent({ type: EventType.RUN_ERROR, message, code });
}

function createOrderChecker() {
  let started = false;
  const open = new Set<string>();
  const spanId = (span: Span, event: BaseEvent) => `${span.kind}:${String(event[span.key])}`;

  /** Returns false for an event to drop silently (an empty delta); throws on a violation. */
  return (event: BaseEvent): boolean => {
    if (!started) {
      if (event.type !== EventType.RUN_STARTED) throw new OrderViolation(`the first event was ${event.type}`);
      started = true;
      return true;
    }
    if (event.type === EventType.RUN_STARTED) throw new OrderViolation('RUN_STARTED was sent twice');
    if (event.type === EventType.RUN_FINISHED && open.size > 0) {
      throw new OrderViolation(`RUN_FINISHED was sent while ${[...open].join(', ')} was still open`);
    }
    const span = SPANS[event.type];
    if (span === undefined) return true;
    const id = spanId(span, event);
    if (span.role === 'start') {
      if (open.has(id)) throw new OrderViolation(`${id} was started twice`);
      open.add(id);
      return true;
    }
    if (!open.has(id)) throw new OrderViolation(`${event.type} for ${id}, which is not open`);
    if (span.role === 'end') open.delete(id);
    return span.role === 'end' || event.delta !== '';
  };
}

function describeFailure(error: unknown, logger: Logger): BaseEvent {
  if (error instanceof AgentRunError) {
    if (error.cause === undefined) return createRunError(error.message, error.code);
    const errorId = logFailure(logger, 'error', error.cause, `agent run failed: ${error.message}`);
    return createRunError(withErrorId(error.message, errorId), error.code);
  }
  // Anything else may carry internals (paths, hosts, SQL, an upstream's reply): the client gets a plain
  // sentence, the log the rest.
  const errorId = logFailure(logger, 'error', error, 'agent run failed');
  return createRunError(withErrorId('The agent failed while running.', errorId), 'agent_error');
}

/**
 * Yields the agent's events in a valid order and always ends with one terminal event, unless the
 * client went away (`signal` aborted), when nobody is listening and the run just stops.
 */
export async function* guardEventOrder(
  events: AsyncIterable<BaseEvent>,
  run: Run,
  signal: AbortSignal,
  logger: Logger,
): AsyncGenerator<BaseEvent> {
  const check = createOrderChecker();
  let started = false;
  const fail = function* (error: unknown) {
    if (!started) yield { type: EventType.RUN_STARTED, threadId: run.threadId, runId: run.runId } as BaseEvent;
    if (error instanceof OrderViolation) {
      logger.warn({ violation: error.message }, 'agent broke the AG-UI event order');
      yield createRunError(`The agent broke the AG-UI event order: ${error.message}.`, 'protocol_violation');
      return;
    }
    yield describeFailure(error, logger);
  };

  try {
    for await (const produced of events) {
      const event = toStorableEvent(produced);
      if (event.type === EventType.RUN_ERROR && !started) {
        yield* fail(new AgentRunError(String(event.message), String(event.code ?? 'agent_error')));
        return;
      }
      let keep: boolean;
      try {
        keep = check(event);
      } catch (violation) {
        yield* fail(violation);
        return;
      }
      started = true;
      if (keep) yield event;
      if (TERMINAL.has(event.type)) return;
    }
  } catch (error) {
    if (signal.aborted) return;
    yield* fail(error);
    return;
  }
  if (!signal.aborted) yield* fail(new OrderViolation('the agent stopped without RUN_FINISHED or RUN_ERROR'));
}
