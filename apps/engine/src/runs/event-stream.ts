// The response side of a run: SSE by default, AG-UI protobuf only when the client names its media type,
// keepalive comments while the agent is quiet, and writes that wait for a slow client instead of
// buffering without bound.
import type { BaseEvent } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, EventEncoder } from '@ag-ui/encoder';
import type { Request, Response } from 'express';

export const KEEPALIVE_MS = 15_000;
const KEEPALIVE_COMMENT = ': keepalive\n\n';

export type EventStream = {
  /** False for an AG-UI protobuf stream, whose frames carry no event ids. */
  sse: boolean;
  /** Sends one event; on SSE with its `id:` line and `data` (sseData of the event, if already made). */
  send: (event: BaseEvent, id: string, data?: string) => Promise<void>;
  /** Sends an event already encoded as its `data:` payload (sseData), on SSE only: a replay. */
  sendData: (id: string, data: string) => Promise<void>;
  end: () => void;
};

const sseEncoder = new EventEncoder();

/** The `data:` payload of an event on an SSE stream: what run_events stores. */
export const sseData = (event: BaseEvent): string => sseEncoder.encodeSSE(event).slice('data: '.length, -2);

const sseFrame = (id: string, data: string) => `id: ${id}\ndata: ${data}\n\n`;

// True only when Accept names the AG-UI protobuf type with q > 0. A wildcard Accept or none at all
// means SSE: the encoder alone would pick protobuf for a wildcard, which most clients send by default.
export function acceptsProtobuf(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return type === AGUI_MEDIA_TYPE && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** `sseOnly`: a replay of stored events, which are kept as SSE payloads only. */
export function openEventStream(
  req: Request,
  res: Response,
  keepaliveMs = KEEPALIVE_MS,
  { sseOnly = false }: { sseOnly?: boolean } = {},
): EventStream {
  const binary = !sseOnly && acceptsProtobuf(req.headers.accept);
  const encoder = new EventEncoder(binary ? { accept: AGUI_MEDIA_TYPE } : {});
  res.socket?.setNoDelay(true);
  res.writeHead(200, {
    'Content-Type': encoder.getContentType(),
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();

  const open = () => !res.writableEnded && !res.destroyed;
  // Protobuf frames have no comment syntax; a binary stream relies on its events alone.
  const keepalive = binary ? undefined : setInterval(() => open() && res.write(KEEPALIVE_COMMENT), keepaliveMs);
  const stop = () => clearInterval(keepalive);
  res.on('close', stop);

  const write = async (chunk: string | Uint8Array) => {
    if (!open()) return;
    const written = res.write(chunk);
    if (!written && open()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };

  return {
    sse: !binary,
    send: (event, id, data) => write(binary ? encoder.encodeBinary(event) : sseFrame(id, data ?? sseData(event))),
    sendData: (id, data) => write(sseFrame(id, data)),
    end: () => {
      stop();
      if (open()) res.end();
    },
  };
}
