// A run's stored events, read from its engine with the user's engine token: GET /agent/runs/{id}/events
// gives them as JSON pages, each event with the time the engine stored it (the run view's durations).
// A run still going is read again after the last event until it ends.
import { getFromEngine } from '../playground/engine-token';
import { type EngineRun, isFinal } from './run-record';

export type RunEvent = { type: string; [field: string]: unknown };
export type StoredRunEvent = { seq: number; stored_at: string; event: RunEvent };
type EventsPage = { status: EngineRun['status']; events: StoredRunEvent[]; next_after: number | null };

// How long a reader of a run still going waits before asking for what it stored since.
const LIVE_POLL_MS = 1_000;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Reads the run's events, handing each page to `onEvents`; resolves once the run has ended and all are read. */
export async function readRunEvents(options: {
  engineUrl: string;
  runId: string;
  token: () => Promise<string>;
  signal: AbortSignal;
  onEvents: (events: StoredRunEvent[]) => void;
}): Promise<void> {
  const path = `/agent/runs/${encodeURIComponent(options.runId)}/events`;
  let after = 0;
  while (!options.signal.aborted) {
    const page = await getFromEngine<EventsPage>(options.engineUrl, `${path}?after=${after}`, await options.token());
    if (options.signal.aborted) return;
    if (page.events.length > 0) options.onEvents(page.events);
    after = page.events.at(-1)?.seq ?? after;
    if (page.next_after !== null) continue;
    // Final only once its last event is stored (the engine's rule), so this page held the rest.
    if (isFinal(page.status)) return;
    await pause(LIVE_POLL_MS, options.signal);
  }
}
