// A run's figures for the metrics: started, active, time to its first event, tokens, and how it ended.
// Wraps the run's record, through which every run passes (streamed, from the queue, WhatsApp).
import type { BaseEvent } from '@ag-ui/core';
import type { RunMetrics } from '../metrics/engine-metrics.js';
import { outcomeOf, type RecordedRun } from './recorded-run.js';
import type { RunSource } from './run-records.js';

export function meterRun(recorded: RecordedRun, metrics: RunMetrics, source: RunSource): RecordedRun {
  const labels = { source };
  metrics.started.inc(labels);
  metrics.active.inc(labels);
  const timeToFirstEvent = metrics.firstEvent.startTimer(labels);
  let last: BaseEvent | undefined;
  let ended = false;
  return {
    record: (event) => {
      if (last === undefined) timeToFirstEvent();
      last = event;
      return recorded.record(event);
    },
    countUsage: (usage) => {
      metrics.inputTokens.inc(usage.inputTokens);
      metrics.outputTokens.inc(usage.outputTokens);
      recorded.countUsage(usage);
    },
    keepGuardrailAction: recorded.keepGuardrailAction,
    finish: async (aborted, stopped, alongside) => {
      try {
        await recorded.finish(aborted, stopped, alongside);
      } finally {
        if (!ended) {
          metrics.finished.inc({ source, outcome: outcomeOf(last, aborted, stopped).status });
          metrics.active.dec(labels);
        }
        ended = true;
      }
    },
  };
}
