// A local stand-in for the WhatsApp Cloud API (Graph API) on loopback: records every request to
// /{version}/{phoneNumberId}/messages and answers with scripted statuses (200 unless told otherwise),
// optionally held until a gate settles. `delivered` lists only the messages it answered 200 to.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';

export type GraphRequest = {
  method: string;
  path: string;
  authorization: string | undefined;
  body: { messaging_product?: string; to?: string; type?: string; text?: { body?: string } };
};

export type GraphResponseScript = {
  status: number;
  code?: number;
  message?: string;
  /** Held until this settles; a client that gave up meanwhile gets nothing. */
  gate?: Promise<unknown>;
  headers?: Record<string, string>;
};

export type FakeGraphApi = {
  baseUrl: string;
  requests: GraphRequest[];
  /** Requests answered 200 with the response fully sent: what WhatsApp would deliver. */
  delivered: GraphRequest[];
  /** Queues responses for the requests whose path contains `phoneNumberId`, in order. */
  script: (phoneNumberId: string, ...responses: GraphResponseScript[]) => void;
  close: () => Promise<void>;
};

async function readJson(req: IncomingMessage): Promise<GraphRequest['body']> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as GraphRequest['body'];
  } catch {
    return {};
  }
}

export async function startFakeGraphApi(): Promise<FakeGraphApi> {
  const requests: GraphRequest[] = [];
  const delivered: GraphRequest[] = [];
  const scripts = new Map<string, GraphResponseScript[]>();
  let counter = 0;

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://graph').pathname;
    const request: GraphRequest = {
      method: req.method ?? '',
      path,
      authorization: req.headers.authorization,
      body: await readJson(req),
    };
    requests.push(request);
    const phoneNumberId = path.split('/')[2] ?? '';
    const next = scripts.get(phoneNumberId)?.shift() ?? { status: 200 };
    if (next.gate !== undefined) await next.gate;
    if (res.destroyed) return;
    if (next.status !== 200) {
      res.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers });
      res.end(
        JSON.stringify({
          error: { message: next.message ?? 'scripted failure', type: 'OAuthException', code: next.code ?? 1 },
        }),
      );
      return;
    }
    counter++;
    res.on('finish', () => delivered.push(request));
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        contacts: [{ input: request.body.to, wa_id: request.body.to }],
        messages: [{ id: `wamid.fake.${counter}` }],
      }),
    );
  };

  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  return {
    baseUrl: (await listenOnLoopback(server)).origin,
    requests,
    delivered,
    script: (phoneNumberId, ...responses) => {
      scripts.set(phoneNumberId, [...(scripts.get(phoneNumberId) ?? []), ...responses]);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
