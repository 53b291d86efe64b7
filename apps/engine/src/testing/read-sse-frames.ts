// Reads a run's SSE response frame by frame, as sent: each event's raw text with its `id:` and
// `data:` lines, to compare streams byte for byte. Comments (keepalives) are left out.
export type SseFrame = { raw: string; id: string; data: string };

/** Reads until the stream ends, or until `stopWhen` holds (then cancels the body, as a leaving client does). */
export async function readSseFrames(
  response: Response,
  stopWhen: (frames: SseFrame[]) => boolean = () => false,
): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  if (response.body === null) return frames;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const raw = buffer.slice(0, end + 2);
      buffer = buffer.slice(end + 2);
      if (!raw.startsWith(':')) {
        const field = (name: string) =>
          raw
            .split('\n')
            .find((line) => line.startsWith(`${name}: `))
            ?.slice(name.length + 2) ?? '';
        frames.push({ raw, id: field('id'), data: field('data') });
      }
      end = buffer.indexOf('\n\n');
    }
    if (stopWhen(frames)) {
      await reader.cancel();
      break;
    }
  }
  return frames;
}

/** The AG-UI event type of a frame. */
export const frameType = (frame: SseFrame) => (JSON.parse(frame.data) as { type: string }).type;
