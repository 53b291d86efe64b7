// A local OpenAI-compatible chat-completions server for tests: it streams real `chat.completion.chunk`
// SSE for scripted turns (text deltas, tool-call deltas, HTTP errors, or a stream that never ends)
// and records every request. A test peer, standing in for OpenAI, vLLM or Ollama on loopback.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';

export type ScriptedToolCall = { id: string; name: string; arguments: string[] };

/** Token counts of a turn, reported when the request asks `stream_options.include_usage`. */
export type ScriptedUsage = { prompt_tokens: number; completion_tokens: number };

export type ScriptedTurn =
  | {
      /**
       * The text chunks. A promise among them holds the stream there until it settles, so a test can act
       * when the client has some of the text (or all of it, the turn not yet over).
       */
      text: (string | Promise<unknown>)[];
      toolCalls?: ScriptedToolCall[];
      usage?: ScriptedUsage;
    }
  | { toolCalls: ScriptedToolCall[]; usage?: ScriptedUsage }
  | { status: number; message: string }
  /** Streams these text chunks, then holds the response open until the client goes away. */
  | { stall: string[] }
  /** Plays `turn` once `gate` settles, so a test can act while the model is "thinking". */
  | { gate: Promise<unknown>; turn: ScriptedTurn };

export type RecordedRequest = {
  /** The path and query requested. */
  url: string;
  body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    temperature?: number;
    stream_options?: { include_usage?: boolean };
  };
  authorization: string | undefined;
  /** Every header of the request, to prove what an engine does not send. */
  headers: IncomingHttpHeaders;
};

export type FakeOpenAiServer = {
  /** The baseUrl to configure, ending in /v1. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues turns; each chat request takes the next one. */
  script: (...turns: ScriptedTurn[]) => void;
  /** How many responses the client closed before they were complete. */
  clientAborts: () => number;
  close: () => Promise<void>;
};

type ChunkDelta = Record<string, unknown>;

// Each completion has its own id, as with real providers (LangGraph's message reducer keys on it).
let completions = 0;

const chunkOf = (id: string, fields: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model', ...fields })}\n\n`;

function encodeChunk(id: string, delta: ChunkDelta, finishReason: string | null = null): string {
  return chunkOf(id, { choices: [{ index: 0, delta, finish_reason: finishReason }] });
}

type StreamedTurn = {
  text?: (string | Promise<unknown>)[];
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage | undefined;
};

/** The turn's SSE chunks, and where it holds, the promises it waits for. */
function* streamTurn(turn: StreamedTurn): Generator<string | Promise<unknown>> {
  const id = `chatcmpl-fake-${++completions}`;
  yield encodeChunk(id, { role: 'assistant', content: '' });
  for (const text of turn.text ?? []) yield typeof text === 'string' ? encodeChunk(id, { content: text }) : text;
  for (const [index, call] of (turn.toolCalls ?? []).entries()) {
    yield encodeChunk(id, {
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    for (const fragment of call.arguments)
      yield encodeChunk(id, { tool_calls: [{ index, function: { arguments: fragment } }] });
  }
  yield encodeChunk(id, {}, turn.toolCalls?.length ? 'tool_calls' : 'stop');
  // As OpenAI does: one last chunk with no choices, carrying the turn's usage.
  if (turn.usage !== undefined) {
    const { prompt_tokens, completion_tokens } = turn.usage;
    yield chunkOf(id, {
      choices: [],
      usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
    });
  }
  yield 'data: [DONE]\n\n';
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

/**
 * A request without `stream: true` gets one `chat.completion` (text only, with scripted or one-per-part
 * usage); a stall holds the request unanswered until the client goes away.
 */
function respondWhole(res: ServerResponse, turn: Exclude<ScriptedTurn, { status: number } | { gate: unknown }>): void {
  if ('stall' in turn) return;
  const parts = 'text' in turn ? turn.text.filter((text) => typeof text === 'string') : [];
  const { prompt_tokens, completion_tokens } = turn.usage ?? { prompt_tokens: 1, completion_tokens: parts.length };
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      id: `chatcmpl-fake-${++completions}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [{ index: 0, message: { role: 'assistant', content: parts.join('') }, finish_reason: 'stop' }],
      usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
    }),
  );
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const queue: ScriptedTurn[] = [];
  const requests: RecordedRequest[] = [];
  let aborts = 0;

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    // A base URL may carry a query (some servers take their key there): only the path must match.
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://fake').pathname !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = (await readJson(req)) as RecordedRequest['body'];
    requests.push({
      url: req.url ?? '',
      body,
      authorization: req.headers.authorization,
      headers: req.headers,
    });
    let turn = queue.shift() ?? { status: 500, message: 'the fake server has no scripted turn left' };
    while ('gate' in turn) {
      await turn.gate;
      turn = turn.turn;
    }
    if ('status' in turn) {
      res.writeHead(turn.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: turn.message, type: 'server_error', code: null } }));
      return;
    }
    res.on('close', () => {
      if (!res.writableFinished) aborts++;
    });
    if (body.stream !== true) {
      respondWhole(res, turn);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    if ('stall' in turn) {
      for (const part of streamTurn({ text: turn.stall })) {
        if (typeof part !== 'string' || part.includes('finish_reason":"stop')) break;
        res.write(part);
      }
      return;
    }
    // Without scripted counts, one token per message in and one per streamed part out.
    const usage = body.stream_options?.include_usage
      ? (turn.usage ?? {
          prompt_tokens: body.messages.length,
          completion_tokens:
            ('text' in turn ? turn.text.filter((text) => typeof text === 'string').length : 0) +
            (turn.toolCalls?.length ?? 0),
        })
      : undefined;
    for (const part of streamTurn({ ...turn, usage })) {
      if (typeof part === 'string') res.write(part);
      else await part;
    }
    res.end();
  };

  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  const { origin } = await listenOnLoopback(server);

  return {
    baseUrl: `${origin}/v1`,
    requests,
    script: (...turns) => queue.push(...turns),
    clientAborts: () => aborts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
