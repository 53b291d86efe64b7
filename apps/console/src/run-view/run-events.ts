// A run's stored events, read from its engine as the playground reads a run: GET /agent/runs/{id}/stream
// with the user's engine token. The engine replays what it stored, then follows a run still going until
// it ends, so one reader serves a finished run and a live one. The stream's events are the AG-UI events
// the run's client got, one JSON object per `data:` field.
import { engineProblem, fetchFromEngine } from '../api/engine-fetch';

export type RunEvent = { type: string; [field: string]: unknown };

/** The `data:` payloads of the complete SSE events in `text`, and what is left of an event still arriving. */
export function splitSseEvents(text: string): { payloads: string[]; rest: string } {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const payloads = blocks.flatMap((block) => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    return data.length === 0 ? [] : [data.join('\n')];
  });
  return { payloads, rest };
}

/** Reads the run's events, handing each batch to `onEvents` as it arrives; resolves when the stream ends. */
export async function readRunEvents(options: {
  engineUrl: string;
  runId: string;
  token: string;
  signal: AbortSignal;
  onEvents: (events: RunEvent[]) => void;
}): Promise<void> {
  const response = await fetchFromEngine(
    `${options.engineUrl.replace(/\/$/, '')}/agent/runs/${encodeURIComponent(options.runId)}/stream`,
    { headers: { Authorization: `Bearer ${options.token}`, Accept: 'text/event-stream' }, signal: options.signal },
  );
  if (!response.ok || !response.body) throw await engineProblem(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const { payloads, rest } = splitSseEvents(pending + value);
    pending = rest;
    if (payloads.length > 0) options.onEvents(payloads.map((payload) => JSON.parse(payload) as RunEvent));
  }
}
