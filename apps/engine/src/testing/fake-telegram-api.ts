// A local stand-in for the Telegram Bot API on loopback (POST /bot<token>/<method>, JSON bodies): it
// records every call, keeps the messages it "sent" with their edits applied, answers getMe for the
// token's bot, and answers scripted failures (a 429 with retry_after and Retry-After, a 5xx), optionally
// held until a gate settles. Like Telegram it refuses HTML it cannot parse and an edit that changes
// nothing, so a test sees what Telegram would make of the engine's text.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';

export type TelegramCall = {
  method: string;
  token: string;
  body: Record<string, unknown>;
};

export type TelegramResponseScript = {
  /** A failure to answer with; absent: the call is performed as Telegram would (after the gate). */
  status?: number;
  description?: string;
  /** Seconds, in `parameters.retry_after` and the Retry-After header (a 429's). */
  retryAfter?: number;
  /** Held until this settles; a client that gave up meanwhile gets nothing. */
  gate?: Promise<unknown>;
};

export type FakeTelegramMessage = {
  messageId: number;
  chatId: string;
  text: string;
  parseMode: string | undefined;
  /** Each text the message had, the one it was posted with first. */
  versions: string[];
  replyMarkup: unknown;
  messageThreadId: number | undefined;
  replyToMessageId: number | undefined;
};

export type FakeTelegramApi = {
  baseUrl: string;
  calls: TelegramCall[];
  /** Messages answered 200 with the response fully sent, by id: what the chat would show. */
  messages: Map<number, FakeTelegramMessage>;
  /** Queues responses for the next calls of `method`, in order. */
  script: (method: string, ...responses: TelegramResponseScript[]) => void;
  close: () => Promise<void>;
};

export const FAKE_BOT_USERNAME = 'agentplane_test_bot';

const TELEGRAM_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'a', 'code', 'pre']);
const MORE_TELEGRAM_TAGS = new Set(['blockquote', 'span', 'tg-spoiler', 'tg-emoji']);

/** Telegram's HTML parse mode, as strict as Telegram: known tags, balanced, and four named entities. */
function htmlProblem(text: string): string | undefined {
  const open: string[] = [];
  for (const match of text.matchAll(/<(\/?)([a-z-]*)[^>]*>|<|&(#?\w*);?/g)) {
    const [token, closing, tag, entity] = match;
    if (entity !== undefined || token.startsWith('&')) {
      if (!/^&(lt|gt|amp|quot|#\d+|#x[\da-f]+);$/i.test(token)) return `unsupported entity ${token}`;
      continue;
    }
    if (tag === undefined || (!TELEGRAM_TAGS.has(tag) && !MORE_TELEGRAM_TAGS.has(tag)))
      return `unsupported tag ${token}`;
    if (closing === '') open.push(tag);
    else if (open.pop() !== tag) return `can't find end tag corresponding to start tag "${tag}"`;
  }
  return open.length === 0 ? undefined : `can't find end tag corresponding to start tag "${open.at(-1)}"`;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

type Answer = { status: number; result?: unknown; description?: string; retryAfter?: number };

export async function startFakeTelegramApi(): Promise<FakeTelegramApi> {
  const calls: TelegramCall[] = [];
  const messages = new Map<number, FakeTelegramMessage>();
  const scripts = new Map<string, TelegramResponseScript[]>();
  let lastMessageId = 0;

  const badRequest = (description: string): Answer => ({ status: 400, description: `Bad Request: ${description}` });

  const sendMessage = (body: Record<string, unknown>): { answer: Answer; commit?: () => void } => {
    const text = String(body.text ?? '');
    const problem = body.parse_mode === 'HTML' ? htmlProblem(text) : undefined;
    if (problem !== undefined) return { answer: badRequest(`can't parse entities: ${problem}`) };
    if (text.length > 4096) return { answer: badRequest('message is too long') };
    const messageId = ++lastMessageId;
    const message: FakeTelegramMessage = {
      messageId,
      chatId: String(body.chat_id),
      text,
      parseMode: body.parse_mode as string | undefined,
      versions: [text],
      replyMarkup: body.reply_markup,
      messageThreadId: body.message_thread_id as number | undefined,
      replyToMessageId: (body.reply_parameters as { message_id?: number } | undefined)?.message_id,
    };
    const result = { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: body.chat_id }, text };
    return { answer: { status: 200, result }, commit: () => messages.set(messageId, message) };
  };

  const editMessageText = (body: Record<string, unknown>): { answer: Answer; commit?: () => void } => {
    const message = messages.get(Number(body.message_id));
    if (message === undefined || message.chatId !== String(body.chat_id)) {
      return { answer: badRequest('message to edit not found') };
    }
    const text = String(body.text ?? '');
    const problem = body.parse_mode === 'HTML' ? htmlProblem(text) : undefined;
    if (problem !== undefined) return { answer: badRequest(`can't parse entities: ${problem}`) };
    if (text === message.text) {
      return { answer: badRequest('message is not modified: specified new message content is exactly the same') };
    }
    const result = { message_id: message.messageId, chat: { id: body.chat_id }, text };
    const commit = () => {
      message.text = text;
      message.versions.push(text);
    };
    return { answer: { status: 200, result }, commit };
  };

  const perform = (method: string, token: string, body: Record<string, unknown>) => {
    switch (method) {
      case 'getMe':
        return {
          answer: {
            status: 200,
            result: { id: Number(token.split(':')[0]), is_bot: true, username: FAKE_BOT_USERNAME, first_name: 'Test' },
          },
        };
      case 'sendMessage':
        return sendMessage(body);
      case 'editMessageText':
        return editMessageText(body);
      case 'answerCallbackQuery':
        return { answer: { status: 200, result: true } };
      default:
        return { answer: { status: 404, description: 'Not Found: method not found' } };
    }
  };

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url ?? '/', 'http://telegram').pathname);
    const body = await readJson(req);
    if (match === null) {
      res
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end('{"ok":false,"error_code":404,"description":"Not Found"}');
      return;
    }
    const [, token = '', method = ''] = match;
    calls.push({ method, token, body });
    const scripted = scripts.get(method)?.shift();
    if (scripted?.gate !== undefined) await scripted.gate;
    if (res.destroyed) return;
    const { answer, commit } =
      scripted?.status === undefined
        ? perform(method, token, body)
        : { answer: { ...scripted, status: scripted.status } as Answer, commit: undefined };
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (answer.retryAfter !== undefined) headers['Retry-After'] = String(answer.retryAfter);
    const payload =
      answer.status === 200
        ? { ok: true, result: answer.result }
        : {
            ok: false,
            error_code: answer.status,
            description: answer.description ?? 'scripted failure',
            ...(answer.retryAfter === undefined ? {} : { parameters: { retry_after: answer.retryAfter } }),
          };
    if (commit !== undefined) res.on('finish', commit);
    res.writeHead(answer.status, headers).end(JSON.stringify(payload));
  };

  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  return {
    baseUrl: (await listenOnLoopback(server)).origin,
    calls,
    messages,
    script: (method, ...responses) => {
      scripts.set(method, [...(scripts.get(method) ?? []), ...responses]);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
