// A local stand-in for Slack's Web API on loopback: chat.postMessage and chat.update against an
// in-memory workspace, with the bot token checked as Slack does (`invalid_auth` on a wrong one).
// Records every call, and answers scripted failures (a 429 with Retry-After, a 500, a platform error)
// in order per method, optionally held until a gate settles.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { nextSlackTs } from './slack-deliveries.js';

export type SlackCall = {
  /** The Web API method: `chat.postMessage`, `chat.update`, … */
  method: string;
  authorization: string | undefined;
  /** The form fields as sent; `blocks` parsed from its JSON. */
  args: Record<string, string> & { blocks?: unknown };
};

export type SlackMessage = {
  channel: string;
  ts: string;
  threadTs: string | undefined;
  text: string;
  blocks?: unknown;
};

export type SlackResponseScript = {
  /** An HTTP status other than 200 (429, 500, …), or 200 with `error` (Slack's `ok: false`). */
  status: number;
  error?: string;
  headers?: Record<string, string>;
  /** Held until this settles; a client that gave up meanwhile gets nothing. */
  gate?: Promise<unknown>;
};

export type FakeSlackApi = {
  /** SLACK_API_BASE_URL for the engine: ends in a slash, as the Web API client expects. */
  baseUrl: string;
  calls: SlackCall[];
  /** Calls answered `ok: true` with the response fully sent: what Slack would have done. */
  delivered: SlackCall[];
  /** The messages as they stand now (posted, then edited), in the order they were posted. */
  messages: () => SlackMessage[];
  /** Queues responses for the next calls of `method`, in order; unscripted calls succeed. */
  script: (method: string, ...responses: SlackResponseScript[]) => void;
  close: () => Promise<void>;
};

async function readForm(req: IncomingMessage): Promise<SlackCall['args']> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  const args: SlackCall['args'] = (req.headers['content-type'] ?? '').startsWith('application/json')
    ? (JSON.parse(text) as SlackCall['args'])
    : Object.fromEntries(new URLSearchParams(text));
  if (typeof args.blocks === 'string') args.blocks = JSON.parse(args.blocks);
  return args;
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

export async function startFakeSlackApi({ botToken }: { botToken: string }): Promise<FakeSlackApi> {
  const calls: SlackCall[] = [];
  const delivered: SlackCall[] = [];
  const scripts = new Map<string, SlackResponseScript[]>();
  const messages = new Map<string, SlackMessage>();

  const perform = (call: SlackCall): { ok: true; [key: string]: unknown } | { ok: false; error: string } => {
    const { channel, text = '', ts, thread_ts: threadTs } = call.args;
    if (channel === undefined) return { ok: false, error: 'channel_not_found' };
    if (call.method === 'chat.postMessage') {
      const posted = { channel, ts: nextSlackTs() };
      messages.set(`${channel}:${posted.ts}`, { ...posted, threadTs, text, blocks: call.args.blocks });
      return { ok: true, ...posted, message: { text, ts: posted.ts, thread_ts: threadTs } };
    }
    if (call.method === 'chat.update') {
      const message = messages.get(`${channel}:${ts}`);
      if (message === undefined) return { ok: false, error: 'message_not_found' };
      message.text = text;
      return { ok: true, channel, ts, text };
    }
    return { ok: false, error: 'unknown_method' };
  };

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const method = new URL(req.url ?? '/', 'http://slack').pathname.split('/').pop() ?? '';
    const call: SlackCall = { method, authorization: req.headers.authorization, args: await readForm(req) };
    calls.push(call);
    const next = scripts.get(method)?.shift();
    if (next?.gate !== undefined) await next.gate;
    if (res.destroyed) return;
    if (next !== undefined && next.status !== 200) {
      send(res, next.status, { ok: false, error: next.error ?? 'scripted_failure' }, next.headers);
      return;
    }
    if (next?.error !== undefined) {
      send(res, 200, { ok: false, error: next.error }, next.headers);
      return;
    }
    if (call.authorization !== `Bearer ${botToken}`) {
      send(res, 200, { ok: false, error: 'invalid_auth' });
      return;
    }
    const result = perform(call);
    if (result.ok) res.on('finish', () => delivered.push(call));
    send(res, 200, result);
  };

  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  return {
    baseUrl: `${(await listenOnLoopback(server)).origin}/api/`,
    calls,
    delivered,
    messages: () => [...messages.values()],
    script: (method, ...responses) => {
      scripts.set(method, [...(scripts.get(method) ?? []), ...responses]);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
