// A pass-through proxy in front of an MCP server over HTTP that records what crosses it: the HTTP
// method of every request and the JSON-RPC method of every message posted, so a test can see what
// reached the server (a call, its cancellation, the end of the session).
import { createServer, request } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';

export type RecordingProxy = {
  url: string;
  httpMethods: string[];
  /** Of requests and notifications alike: initialize, tools/call, notifications/cancelled… */
  rpcMethods: string[];
  close: () => Promise<void>;
};

function readRpcMethods(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: { method?: unknown }) =>
      typeof message?.method === 'string' ? [message.method] : [],
    );
  } catch {
    return [];
  }
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const httpMethods: string[] = [];
  const rpcMethods: string[] = [];
  const server = createServer((req, res) => {
    httpMethods.push(req.method ?? '');
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => rpcMethods.push(...readRpcMethods(Buffer.concat(parts))));
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    // A client that leaves takes its upstream request along; a server that is gone ends the response.
    res.on('close', () => upstream.destroy());
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const { origin } = await listenOnLoopback(server);
  return {
    url: `${origin}/mcp`,
    httpMethods,
    rpcMethods,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
