// A run's events with its trace around them: right after RUN_STARTED, a CUSTOM event tells the client
// which trace the run is (a frontend links to it), and the run's span ends with the run, failed with
// the code of the RUN_ERROR it ended with. The span sees the events after the event order guard, as
// the client does, so `error.type` is always that code and never what an agent or a library threw.
import { type BaseEvent, type CustomEvent, EventType } from '@ag-ui/core';
import type { RunTrace } from './run-trace.js';

/** The CUSTOM event's name; its value is `{trace_id, span_id}`. */
export const TRACE_EVENT_NAME = 'agentplane.trace';

/**
 * How a run stopped before its terminal event: its `signal` was aborted, and its driver ends it with
 * a RUN_ERROR of `code()` (a cancel's, say), or with none when nobody reads it.
 */
export type RunStop = { signal: AbortSignal; code: () => string };

export async function* withRunTrace(
  events: AsyncIterable<BaseEvent>,
  runTrace: RunTrace,
  stop: RunStop,
): AsyncGenerator<BaseEvent> {
  let ended = false;
  let errorType: string | undefined;
  try {
    for await (const event of events) {
      if (event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR) ended = true;
      if (event.type === EventType.RUN_ERROR) errorType = String((event as { code?: unknown }).code ?? 'run_error');
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
  } finally {
    runTrace.end(!ended && stop.signal.aborted ? stop.code() : errorType);
  }
}

/** The run's guarded events, inside its trace when it has one. */
export function traceRun(events: AsyncIterable<BaseEvent>, trace: RunTrace | undefined, stop: RunStop) {
  return trace === undefined ? events : withRunTrace(events, trace, stop);
}
