// A made-up messaging provider for the channel core's own tests, so the router and the worker are
// tested apart from any real provider: "echo" takes deliveries signed with a shared token (the
// integration's secretToken, compared in constant time), and replies, edits and approval messages go to
// a local fake of its API that records every call and answers as scripted (a 429 with Retry-After, a
// held answer). It borrows the TELEGRAM integration's config ({botToken, secretToken}) and takes that
// provider's place in the engine it is given to (startTestEngine's channelAdapters): never in production.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { TestDatabase } from '@agentplane/db/testing';
import { AppError } from '@agentplane/server-kit';
import { listenOnLoopback } from '@agentplane/testing';
import type { ChannelAdapter, InboundItem } from '../channels/channel-adapter.js';
import { callProvider } from '../channels/provider-call.js';
import type { RunningEngine } from '../start-engine.js';
import { equalsSecret } from '../whatsapp/verify-webhook.js';
import { type ChannelAgent, channelWebhookUrl, publishChannelAgent, startChannelEngine } from './channel-agent.js';
import type { TestConfigOptions } from './engine-configs.js';

export const ECHO_SLUG = 'echo';
export const ECHO_TOKEN_HEADER = 'x-echo-token';

/** What the fake API was asked: `post`, `edit` or `approval`, with the JSON body. */
export type EchoCall = {
  method: 'post' | 'edit' | 'approval';
  botToken: string | undefined;
  body: { address?: Record<string, string>; id?: string; text?: string; request?: Record<string, unknown> };
};

export type EchoScript = { status: number; headers?: Record<string, string>; gate?: Promise<unknown> };

export type FakeEchoApi = {
  baseUrl: string;
  calls: EchoCall[];
  /** Calls answered 200, fully sent. */
  delivered: EchoCall[];
  /** Queues answers for the next calls, in order (200 once they run out). */
  script: (...answers: EchoScript[]) => void;
  close: () => Promise<void>;
};

async function readBody(req: IncomingMessage): Promise<EchoCall['body']> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as EchoCall['body'];
}

export async function startFakeEchoApi(): Promise<FakeEchoApi> {
  const calls: EchoCall[] = [];
  const delivered: EchoCall[] = [];
  const scripts: EchoScript[] = [];
  let posted = 0;
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const method = new URL(req.url ?? '/', 'http://echo').pathname.slice(1) as EchoCall['method'];
    const call: EchoCall = { method, botToken: req.headers.authorization, body: await readBody(req) };
    calls.push(call);
    const next = scripts.shift() ?? { status: 200 };
    if (next.gate !== undefined) await next.gate;
    if (res.destroyed) return;
    if (next.status !== 200) {
      res.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers });
      res.end(JSON.stringify({ error: 'scripted failure' }));
      return;
    }
    res.on('finish', () => delivered.push(call));
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ id: method === 'edit' ? call.body.id : `echo-${++posted}` }));
  };
  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  return {
    baseUrl: (await listenOnLoopback(server)).origin,
    calls,
    delivered,
    script: (...answers) => {
      scripts.push(...answers);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A delivery of the echo provider: a message, a press of an approval button, or a handshake. */
export type EchoDelivery =
  | { id: string; conversation: string; sender: string; text?: string }
  | { id: string; conversation: string; sender: string; approval: { interruptId: string; approved: boolean } }
  | { challenge: string };

function itemOf(delivery: EchoDelivery): InboundItem | undefined {
  if ('challenge' in delivery) return undefined;
  const base = {
    providerMessageId: delivery.id,
    conversation: delivery.conversation,
    sender: delivery.sender,
    address: { conversation: delivery.conversation },
  };
  if ('approval' in delivery) return { ...base, kind: 'approval', ...delivery.approval };
  return { ...base, kind: 'message', text: delivery.text, attachments: [] };
}

export type EchoAdapterOptions = {
  baseUrl: string;
  /** The least time between two edits; the echo provider edits, so replies stream. */
  editIntervalMs?: number;
  /** The longest message: longer replies are split. */
  maxLength?: number;
  /** With false, the provider has no buttons: approvals follow the unattended policy. */
  buttons?: boolean;
};

export function createEchoAdapter(options: EchoAdapterOptions): ChannelAdapter<'TELEGRAM'> {
  return {
    provider: 'TELEGRAM',
    slug: ECHO_SLUG,
    receive: async (delivery, { config }) => {
      const token = delivery.header(ECHO_TOKEN_HEADER);
      if (token === undefined || !equalsSecret(token, config.secretToken)) {
        throw new AppError('unauthorized', 'The echo token is missing or wrong.');
      }
      let parsed: EchoDelivery;
      try {
        parsed = JSON.parse(delivery.rawBody.toString('utf8')) as EchoDelivery;
      } catch {
        throw new AppError('bad_request', 'The body is not JSON.');
      }
      const item = itemOf(parsed);
      const body = JSON.stringify('challenge' in parsed ? { challenge: parsed.challenge } : { ok: true });
      return { answer: { status: 200, contentType: 'application/json', body }, items: item ? [item] : [] };
    },
    outbound: ({ config }) => {
      const call = async (method: EchoCall['method'], body: unknown, signal: AbortSignal) => {
        const response = await callProvider({
          api: 'Echo API',
          url: `${options.baseUrl}/${method}`,
          init: {
            method: 'POST',
            headers: { Authorization: config.botToken, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          },
          timeoutMs: 10_000,
          signal,
        });
        return String(((await response.json()) as { id: unknown }).id);
      };
      return {
        maxLength: options.maxLength ?? 1000,
        // Bold in markdown becomes the echo provider's own bold, so tests see that format ran.
        format: (markdown) => markdown.replace(/\*\*(.+?)\*\*/g, '<b>$1</b>'),
        post: (address, text, signal) => call('post', { address, text }, signal),
        edit: async (address, id, text, signal) => {
          await call('edit', { address, id, text }, signal);
        },
        editIntervalMs: options.editIntervalMs ?? 0,
        ...(options.buttons === false
          ? {}
          : { askApproval: (address, request, signal) => call('approval', { address, request }, signal) }),
      };
    },
  };
}

/** Posts an echo delivery for `integrationId`, with `token` unless it is undefined. */
export function postEchoDelivery(
  url: string,
  delivery: EchoDelivery | string,
  token: string | undefined,
): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token !== undefined) headers[ECHO_TOKEN_HEADER] = token;
  return fetch(url, {
    method: 'POST',
    headers,
    body: typeof delivery === 'string' ? delivery : JSON.stringify(delivery),
  });
}

export type EchoAgent = {
  agent: ChannelAgent;
  engine: RunningEngine;
  integrationId: string;
  secretToken: string;
  /** Posts a delivery to the agent's echo integration, signed with its token. */
  deliver: (delivery: EchoDelivery) => Promise<Response>;
};

export type EchoAgentOptions = {
  /** Where the fake echo API listens (startFakeEchoApi). */
  apiBaseUrl: string;
  adapter?: Omit<EchoAdapterOptions, 'baseUrl'>;
  /** The engine's env besides a fast poll and retry. */
  env?: Record<string, string>;
  /** The agent's model, tools and MCP servers. */
  config?: TestConfigOptions;
};

/** An agent with one echo integration, published, and a database-mode engine serving it with the echo adapter. */
export async function startEchoAgent(database: TestDatabase, options: EchoAgentOptions): Promise<EchoAgent> {
  const secretToken = `secret_${randomUUID().replaceAll('-', '')}`;
  const agent = await publishChannelAgent(
    database,
    [{ provider: 'TELEGRAM', config: { botToken: `bot-${randomUUID()}`, secretToken } }],
    options.config,
  );
  const engine = await startChannelEngine(
    database,
    agent,
    { CHANNEL_POLL_MS: '50', CHANNEL_RETRY_BASE_MS: '20', ...options.env },
    { channelAdapters: [createEchoAdapter({ baseUrl: options.apiBaseUrl, ...options.adapter })] },
  );
  const integrationId = agent.integrations[0]?.id ?? '';
  const url = channelWebhookUrl(engine.url, ECHO_SLUG, integrationId);
  return {
    agent,
    engine,
    integrationId,
    secretToken,
    deliver: (delivery) => postEchoDelivery(url, delivery, secretToken),
  };
}
