// Reads a run's SSE response in tests: the AG-UI events, and the comment lines (keepalives) between them.
import type { BaseEvent } from '@ag-ui/core';
import { readSseBlocks } from './read-sse-frames.js';

export type ReadStream = { events: BaseEvent[]; comments: string[] };

/** Reads until the stream ends, or until `stopWhen` holds (then cancels the body, as a leaving client does). */
export async function readEventStream(
  response: Response,
  stopWhen: (read: ReadStream) => boolean = () => false,
): Promise<ReadStream> {
  const read: ReadStream = { events: [], comments: [] };
  await readSseBlocks(
    response,
    (block) => {
      for (const line of block.split('\n')) {
        if (line.startsWith('data: ')) read.events.push(JSON.parse(line.slice(6)) as BaseEvent);
        else if (line.startsWith(':')) read.comments.push(line);
      }
    },
    () => stopWhen(read),
  );
  return read;
}

export const listTypes = (events: BaseEvent[]) => events.map((event) => event.type);

/** The assistant text a run streamed, all text deltas joined. */
export const joinText = (events: BaseEvent[]) =>
  events
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => String(event.delta))
    .join('');
