// Reads a run's SSE response in tests: the AG-UI events, and the comment lines (keepalives) between them.
import type { BaseEvent } from '@ag-ui/core';

export type ReadStream = { events: BaseEvent[]; comments: string[] };

/** Reads until the stream ends, or until `stopWhen` holds (then cancels the body, as a leaving client does). */
export async function readEventStream(
  response: Response,
  stopWhen: (read: ReadStream) => boolean = () => false,
): Promise<ReadStream> {
  const read: ReadStream = { events: [], comments: [] };
  if (response.body === null) return read;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split('\n')) {
        if (line.startsWith('data: ')) read.events.push(JSON.parse(line.slice(6)) as BaseEvent);
        else if (line.startsWith(':')) read.comments.push(line);
      }
      end = buffer.indexOf('\n\n');
    }
    if (stopWhen(read)) {
      await reader.cancel();
      break;
    }
  }
  return read;
}

export const listTypes = (events: BaseEvent[]) => events.map((event) => event.type);

/** The assistant text a run streamed, all text deltas joined. */
export const joinText = (events: BaseEvent[]) =>
  events
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => String(event.delta))
    .join('');
