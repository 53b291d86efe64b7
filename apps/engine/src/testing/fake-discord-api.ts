// A local stand-in for the interaction webhooks of Discord's API on loopback. Like Discord, it creates an
// interaction's original message only once it is told the webhook's answer (`answered`): a deferred
// answer is a "thinking…" message (flags LOADING) until it is edited; a button press's original is the
// message the button is on. It records every call, and answers scripted failures (a 429 with
// Retry-After and retry_after, a 5xx) in order, optionally held until a gate settles.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';

export type DiscordCallRecord = { method: string; path: string; body: DiscordMessageBody | undefined };

export type DiscordMessageBody = {
  content?: string;
  components?: { type: number; components?: { custom_id?: string; label?: string; style?: number }[] }[];
  allowed_mentions?: unknown;
};

export type FakeDiscordMessage = {
  id: string;
  token: string;
  flags: number;
  content: string;
  components: NonNullable<DiscordMessageBody['components']>;
  /** Each content the message had, from its first: a streamed reply shows several. */
  contents: string[];
};

export type DiscordScript = {
  /** Answers the next call of this method only ('PATCH'); unset: the next call. */
  method?: string;
  status: number;
  /** Sent as the body's retry_after and, rounded up as Discord does, as Retry-After. */
  retryAfterSeconds?: number;
  code?: number;
  gate?: Promise<unknown>;
};

export type FakeDiscordApi = {
  baseUrl: string;
  calls: DiscordCallRecord[];
  /** Calls whose client hung up before they were answered (an engine killed mid-call): never performed. */
  hungUp: DiscordCallRecord[];
  /** Messages that exist on the fake, in the order they were created (originals when answered). */
  messages: FakeDiscordMessage[];
  /** Discord took the webhook's answer to the interaction of `token`: `componentMessageId` for a press. */
  answered: (token: string, answer: { type: number; data?: DiscordMessageBody }, componentMessageId?: string) => void;
  /** Messages the app posted or filled (not the "thinking…" originals nobody answered). */
  replies: () => FakeDiscordMessage[];
  /** Answers the next calls (of each one's method) with these, in order, then as Discord would again. */
  script: (...responses: DiscordScript[]) => void;
  close: () => Promise<void>;
};

const LOADING = 1 << 7;
const DEFERRED_CHANNEL_MESSAGE = 5;
const DEFERRED_UPDATE = 6;
const UPDATE_MESSAGE = 7;
const WEBHOOK_PATH = /^\/webhooks\/(\d+)\/([^/]+)(?:\/messages\/([^/]+))?$/;

async function readBody(req: IncomingMessage): Promise<DiscordMessageBody | undefined> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  if (parts.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as DiscordMessageBody;
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startFakeDiscordApi(): Promise<FakeDiscordApi> {
  const calls: DiscordCallRecord[] = [];
  const hungUp: DiscordCallRecord[] = [];
  const messages: FakeDiscordMessage[] = [];
  const originals = new Map<string, string>();
  const scripts: DiscordScript[] = [];
  let counter = 0;

  const create = (token: string, flags: number, body: DiscordMessageBody = {}): FakeDiscordMessage => {
    counter++;
    const message: FakeDiscordMessage = {
      id: String(900_000_000_000_000_000n + BigInt(counter)),
      token,
      flags,
      content: body.content ?? '',
      components: body.components ?? [],
      contents: body.content === undefined ? [] : [body.content],
    };
    messages.push(message);
    return message;
  };
  const update = (message: FakeDiscordMessage, body: DiscordMessageBody = {}) => {
    message.flags &= ~LOADING;
    if (body.content !== undefined) {
      message.content = body.content;
      message.contents.push(body.content);
    }
    if (body.components !== undefined) message.components = body.components;
  };
  const view = ({ id, flags, content, components }: FakeDiscordMessage) => ({ id, flags, content, components });

  const route = (method: string, token: string, target: string | undefined, body: DiscordMessageBody | undefined) => {
    const knownToken = originals.has(token) || messages.some((message) => message.token === token);
    if (!knownToken) return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    if (target === undefined) {
      if (method !== 'POST') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
      return { status: 200, body: view(create(token, 0, body)) };
    }
    const id = target === '@original' ? originals.get(token) : target;
    const message = messages.find((candidate) => candidate.id === id);
    if (message === undefined) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
    if (method === 'PATCH') update(message, body);
    else if (method !== 'GET') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
    return { status: 200, body: view(message) };
  };

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://discord').pathname;
    const method = req.method ?? '';
    const body = await readBody(req);
    const call = { method, path, body };
    calls.push(call);
    res.on('close', () => {
      if (!res.writableFinished) hungUp.push(call);
    });
    const scripted = scripts.findIndex((script) => script.method === undefined || script.method === method);
    const [next] = scripted === -1 ? [] : scripts.splice(scripted, 1);
    if (next?.gate !== undefined) await next.gate;
    if (res.destroyed) return;
    if (next !== undefined && next.status !== 200) {
      const retryAfter = next.retryAfterSeconds;
      sendJson(
        res,
        next.status,
        { message: 'scripted failure', code: next.code ?? 0, retry_after: retryAfter, global: false },
        retryAfter === undefined ? {} : { 'Retry-After': String(Math.ceil(retryAfter)) },
      );
      return;
    }
    const match = WEBHOOK_PATH.exec(path);
    if (match === null) return sendJson(res, 404, { message: '404: Not Found', code: 0 });
    const answer = route(method, decodeURIComponent(String(match[2])), match[3], body);
    sendJson(res, answer.status, answer.body);
  };

  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  return {
    baseUrl: (await listenOnLoopback(server)).origin,
    calls,
    hungUp,
    messages,
    answered: (token, answer, componentMessageId) => {
      if (answer.type === DEFERRED_CHANNEL_MESSAGE) originals.set(token, create(token, LOADING).id);
      else if (
        (answer.type === DEFERRED_UPDATE || answer.type === UPDATE_MESSAGE) &&
        componentMessageId !== undefined
      ) {
        originals.set(token, componentMessageId);
        const message = messages.find((candidate) => candidate.id === componentMessageId);
        if (answer.type === UPDATE_MESSAGE && message !== undefined) update(message, answer.data);
      }
    },
    replies: () => messages.filter((message) => (message.flags & LOADING) === 0 && message.contents.length > 0),
    script: (...responses) => {
      scripts.push(...responses);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
