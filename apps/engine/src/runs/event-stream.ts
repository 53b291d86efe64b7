// The response side of a run: SSE by default, AG-UI protobuf only when the client names its media type,
// keepalive comments while the agent is quiet, and writes that wait for a slow client instead of
// buffering without bound.
import type { BaseEvent } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, EventEncoder } from '@ag-ui/encoder';
import type { Request, Response } from 'express';

export const KEEPALIVE_MS = 15_000;
const KEEPALIVE_COMMENT = ': keepalive\n\n';

export type EventStream = {
  send: (event: BaseEvent) => Promise<void>;
  end: () => void;
};

// True only when Accept names the AG-UI protobuf type with q > 0. A wildcard Accept or none at all
// means SSE: the encoder alone would pick protobuf for a wildcard, which most clients send by default.
export function acceptsProtobuf(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return type === AGUI_MEDIA_TYPE && (q === undefined || Number(q.slice(2)) > 0);
  });
}

export function openEventStream(req: Request, res: Response, keepaliveMs = KEEPALIVE_MS): EventStream {
  const binary = acceptsProtobuf(req.headers.accept);
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

  return {
    send: async (event) => {
      if (!open()) return;
      const written = res.write(binary ? encoder.encodeBinary(event) : encoder.encodeSSE(event));
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
    },
    end: () => {
      stop();
      if (open()) res.end();
    },
  };
}
