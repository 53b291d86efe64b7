// A run's events with its trace around them: right after RUN_STARTED, a CUSTOM event tells the client
// which trace the run is (a frontend links to it), and the run's span ends with the run, failed when
// it ended in RUN_ERROR or threw.
import { type BaseEvent, type CustomEvent, EventType } from '@ag-ui/core';
import type { AgentRunRequest, AgentRuntime } from '../agents/agent-runtime.js';
import type { RunTrace } from './run-trace.js';

/** The CUSTOM event's name; its value is `{trace_id, span_id}`. */
export const TRACE_EVENT_NAME = 'agentplane.trace';

export async function* withRunTrace(events: AsyncIterable<BaseEvent>, runTrace: RunTrace): AsyncGenerator<BaseEvent> {
  let errorType: string | undefined;
  try {
    for await (const event of events) {
      if (event.type === EventType.RUN_ERROR) errorType = (event as { code?: string }).code ?? 'run_error';
      yield event;
      if (event.type === EventType.RUN_STARTED) {
        const announced: CustomEvent = {
          type: EventType.CUSTOM,
          name: TRACE_EVENT_NAME,
          value: { trace_id: runTrace.traceId, span_id: runTrace.spanId },
        };
        yield announced;
      }
    }
  } catch (error) {
    errorType = (error as { code?: string } | undefined)?.code ?? (error instanceof Error ? error.name : 'unknown');
    throw error;
  } finally {
    runTrace.end(errorType);
  }
}

/** The runtime's events for `request`, inside its trace when it has one. */
export function runTraced(runtime: AgentRuntime, request: AgentRunRequest): AsyncIterable<BaseEvent> {
  const events = runtime.run(request);
  return request.trace === undefined ? events : withRunTrace(events, request.trace);
}
