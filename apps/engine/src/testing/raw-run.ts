// A run's SSE response as the client's bytes: the whole body, its event frames as sent, and their
// events, to prove what did not reach a client (anywhere in the bytes) and that a rejoin replays it.
import type { BaseEvent } from '@ag-ui/core';

export type RawRun = { raw: string; frames: string[]; events: BaseEvent[] };

/** The frames of an SSE body (each `id:` and `data:` lines), comments (keepalives) left out. */
export function framesOf(raw: string): string[] {
  return raw.split('\n\n').filter((frame) => frame.includes('data: '));
}

export async function readRawRun(response: Response): Promise<RawRun> {
  const raw = await response.text();
  const frames = framesOf(raw);
  const events = frames.map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as BaseEvent);
  return { raw, frames, events };
}

/** POSTs `body` to the engine's /agent/run without a token and reads the whole response. */
export async function postRawRun(engineUrl: string, body: unknown): Promise<RawRun> {
  const response = await fetch(`${engineUrl}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`POST /agent/run answered ${response.status}: ${await response.text()}`);
  return readRawRun(response);
}
