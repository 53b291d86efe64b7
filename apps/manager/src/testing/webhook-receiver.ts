// A real HTTP receiver for webhook tests: it records every request with its headers and raw body, and
// answers each with the next scripted behaviour (a status, or never answering), 200 once the script ends.
import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedWebhook = { headers: IncomingHttpHeaders; body: string };
export type ReceiverBehaviour = number | 'hang';

export type WebhookReceiver = {
  url: string;
  received: ReceivedWebhook[];
  /** Answers the next requests with these, in order. */
  script: (...behaviours: ReceiverBehaviour[]) => void;
  close: () => Promise<void>;
};

export async function startWebhookReceiver(host = '127.0.0.1'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const pending: ReceiverBehaviour[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const behaviour = pending.shift() ?? 200;
      if (behaviour === 'hang') return;
      res.writeHead(behaviour).end();
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hook`,
    received,
    script: (...behaviours) => pending.push(...behaviours),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
