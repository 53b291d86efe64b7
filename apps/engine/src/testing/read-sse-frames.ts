// Reads a run's SSE response block by block (the text between blank lines), and frame by frame as
// sent: each event's raw text with its `id:` and `data:` lines, to compare streams byte for byte.
export type SseFrame = { raw: string; id: string; data: string };

/**
 * Hands each block, its closing blank line included, to `onBlock` until the stream ends, or until
 * `stopWhen` holds after a read (then cancels the body, as a leaving client does).
 */
export async function readSseBlocks(
  response: Response,
  onBlock: (block: string) => void,
  stopWhen: () => boolean,
): Promise<void> {
  if (response.body === null) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      onBlock(buffer.slice(0, end + 2));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
    if (stopWhen()) {
      await reader.cancel();
      break;
    }
  }
}

/** The events' frames, comments (keepalives) left out. */
export async function readSseFrames(
  response: Response,
  stopWhen: (frames: SseFrame[]) => boolean = () => false,
): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const field = (raw: string, name: string) =>
    raw
      .split('\n')
      .find((line) => line.startsWith(`${name}: `))
      ?.slice(name.length + 2) ?? '';
  await readSseBlocks(
    response,
    (raw) => {
      if (!raw.startsWith(':')) frames.push({ raw, id: field(raw, 'id'), data: field(raw, 'data') });
    },
    () => stopWhen(frames),
  );
  return frames;
}

/** The AG-UI event type of a frame. */
export const frameType = (frame: SseFrame) => (JSON.parse(frame.data) as { type: string }).type;
