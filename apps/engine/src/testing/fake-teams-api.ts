// A local stand-in for the Microsoft side of a Teams bot on loopback: the Bot Framework's OpenID
// metadata and key set (the signer's key), Entra ID's token endpoint (client credentials of the bots
// it was told of), and a connector at `serviceUrl` that records each reply and edit and answers with
// scripted statuses (2xx unless told otherwise), optionally held until a gate settles.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { parseServiceUrlPattern } from '../channels/teams/service-url-allow.js';
import type { TeamsSettings } from '../channels/teams/teams-settings.js';
import { type BotFrameworkSigner, createBotFrameworkSigner } from './teams-delivery-signer.js';

export type ConnectorCall = {
  method: string;
  conversationId: string;
  activityId: string;
  /** The App ID whose token the call carried. */
  appId: string | undefined;
  body: { type?: string; text?: string; textFormat?: string; attachments?: CardAttachment[]; id?: string };
  /** The id a POST was answered with: the message later edits name. */
  replyId?: string;
};

type CardAttachment = { contentType?: string; content?: { actions?: { title?: string; data?: unknown }[] } };

export type TokenRequest = { tenant: string; clientId: string | null; scope: string | null; granted: boolean };

export type ConnectorResponseScript = {
  status: number;
  headers?: Record<string, string>;
  /** Held until this settles; a client that gave up meanwhile gets nothing. */
  gate?: Promise<unknown>;
};

export type FakeTeamsApi = {
  origin: string;
  openIdMetadataUrl: string;
  /** The connector's base, as activities name it (with a path, like https://smba.trafficmanager.net/amer/). */
  serviceUrl: string;
  signer: BotFrameworkSigner;
  calls: ConnectorCall[];
  /** Calls answered 2xx with the answer fully sent: what Teams would show. */
  delivered: ConnectorCall[];
  tokenRequests: TokenRequest[];
  /** Lets this bot get tokens with this password. */
  registerBot: (appId: string, appPassword: string) => void;
  /** Queues answers for the next connector calls, in order. */
  script: (...responses: ConnectorResponseScript[]) => void;
  close: () => Promise<void>;
};

const CONNECTOR_PREFIX = '/amer/';
const ACTIVITY_PATH = /^\/amer\/v3\/conversations\/([^/]+)\/activities\/([^/]+)$/;

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The engine's Teams settings with every Microsoft endpoint at this fake. */
export function fakeTeamsSettings(api: FakeTeamsApi, timeoutMs = 2000): TeamsSettings {
  return {
    openIdMetadataUrl: api.openIdMetadataUrl,
    loginBaseUrl: api.origin,
    serviceUrlAllow: [parseServiceUrlPattern(api.origin)].flatMap((pattern) => pattern ?? []),
    timeoutMs,
  };
}

/** The data of the card button titled `title` in a connector call that posted an approval card. */
export function buttonData(call: ConnectorCall | undefined, title: string): unknown {
  const actions = call?.body.attachments?.[0]?.content?.actions ?? [];
  return actions.find((action) => action.title === title)?.data;
}

export async function startFakeTeamsApi(): Promise<FakeTeamsApi> {
  const signer = await createBotFrameworkSigner();
  const passwords = new Map<string, string>();
  const tokens = new Map<string, string>();
  const calls: ConnectorCall[] = [];
  const delivered: ConnectorCall[] = [];
  const tokenRequests: TokenRequest[] = [];
  const scripts: ConnectorResponseScript[] = [];
  let origin = '';
  let counter = 0;

  const issueToken = async (req: IncomingMessage, res: ServerResponse, tenant: string) => {
    const form = new URLSearchParams(await readBody(req));
    const clientId = form.get('client_id');
    const granted =
      form.get('grant_type') === 'client_credentials' &&
      clientId !== null &&
      passwords.get(clientId) === form.get('client_secret');
    tokenRequests.push({ tenant, clientId, scope: form.get('scope'), granted });
    if (!granted) {
      sendJson(res, 401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret.' });
      return;
    }
    const token = `fake-bot-token-${++counter}`;
    tokens.set(token, clientId);
    sendJson(res, 200, { token_type: 'Bearer', expires_in: 3599, access_token: token });
  };

  const answerConnector = async (req: IncomingMessage, res: ServerResponse, match: RegExpExecArray) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const call: ConnectorCall = {
      method: req.method ?? '',
      conversationId: decodeURIComponent(match[1] ?? ''),
      activityId: decodeURIComponent(match[2] ?? ''),
      appId: bearer === undefined ? undefined : tokens.get(bearer),
      body: JSON.parse((await readBody(req)) || '{}') as ConnectorCall['body'],
    };
    calls.push(call);
    if (call.appId === undefined) {
      sendJson(res, 401, { error: { code: 'Unauthorized', message: 'Authorization has been denied' } });
      return;
    }
    const next = scripts.shift() ?? { status: req.method === 'POST' ? 201 : 200 };
    if (next.gate !== undefined) await next.gate;
    if (res.destroyed) return;
    if (next.status >= 300) {
      sendJson(res, next.status, { error: { code: 'Scripted', message: 'scripted failure' } }, next.headers);
      return;
    }
    if (call.method === 'POST') call.replyId = `reply-${++counter}`;
    res.on('finish', () => delivered.push(call));
    sendJson(res, next.status, { id: call.replyId ?? call.activityId });
  };

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'GET' && path === '/v1/.well-known/openidconfiguration') {
      sendJson(res, 200, { issuer: 'https://api.botframework.com', jwks_uri: `${origin}/v1/.well-known/keys` });
      return;
    }
    if (req.method === 'GET' && path === '/v1/.well-known/keys') return sendJson(res, 200, signer.jwks);
    const tenant = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path)?.[1];
    if (req.method === 'POST' && tenant !== undefined) return issueToken(req, res, decodeURIComponent(tenant));
    const match = ACTIVITY_PATH.exec(path);
    if ((req.method === 'POST' || req.method === 'PUT') && match !== null) return answerConnector(req, res, match);
    sendJson(res, 404, { error: { code: 'NotFound', message: `no route ${req.method} ${path}` } });
  };

  const server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  origin = (await listenOnLoopback(server)).origin;
  return {
    origin,
    openIdMetadataUrl: `${origin}/v1/.well-known/openidconfiguration`,
    serviceUrl: `${origin}${CONNECTOR_PREFIX}`,
    signer,
    calls,
    delivered,
    tokenRequests,
    registerBot: (appId, appPassword) => passwords.set(appId, appPassword),
    script: (...responses) => scripts.push(...responses),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
