// A local stand-in for Google on loopback, for Google Chat tests: the key sets Chat's bearer tokens
// are checked against (and a signer of deliveries under those keys, as Google signs them, with jose),
// the OAuth token endpoint (which checks each service-account assertion against the account's public
// key) and the Chat API's message create and patch. It records every Chat API call and answers with
// scripted statuses (200 unless told otherwise, e.g. 429 with Retry-After), optionally held until a
// gate settles. `delivered` lists only the calls it answered 200 to.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { decodeJwt, exportJWK, exportPKCS8, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { CHAT_ISSUER, type GoogleChatSettings } from '../channels/google-chat/google-chat-settings.js';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export type ChatApiCall = {
  method: string;
  /** The path, e.g. /v1/spaces/AAA/messages. */
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: { text?: string; thread?: { name?: string }; cardsV2?: unknown[] };
};

export type ChatResponseScript = {
  status: number;
  /** Held until this settles; a client that gave up meanwhile gets nothing. */
  gate?: Promise<unknown>;
  headers?: Record<string, string>;
};

export type DeliveryTokenOptions = {
  audience: string;
  /** A Google ID token (the app's audience is its endpoint URL) rather than Chat's own JWT. */
  idToken?: boolean;
  /** Seconds since the epoch; now unless told. */
  issuedAt?: number;
  lifetimeSeconds?: number;
  issuer?: string;
  email?: string;
  /** Signs with a key the key sets do not publish: a forgery. */
  foreignKey?: boolean;
};

export type FakeGoogleChatApi = {
  origin: string;
  /** The adapter's settings pointing every Google URL here. */
  settings: (timeoutMs?: number) => GoogleChatSettings;
  /** The engine's environment pointing every Google URL here. */
  env: Record<string, string>;
  /** A service account the token endpoint knows: its email and its private key, PEM (PKCS #8). */
  addServiceAccount: () => Promise<{ email: string; privateKey: string }>;
  /** An `Authorization` value as Google Chat would send it. */
  signDelivery: (options: DeliveryTokenOptions) => Promise<string>;
  calls: ChatApiCall[];
  /** Calls answered 200 with the response fully sent: what Chat would show. */
  delivered: ChatApiCall[];
  tokenRequests: number;
  /** Each message's text as Chat would show it now, by resource name. */
  messages: Map<string, string>;
  /** Makes every access token issued so far invalid, as a revocation would. */
  revokeTokens: () => void;
  /** Queues responses for the next Chat API calls, in order. */
  script: (...responses: ChatResponseScript[]) => void;
  close: () => Promise<void>;
};

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const publicJwks = async (pair: KeyPair, kid: string): Promise<{ keys: JWK[] }> => ({
  keys: [{ ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' }],
});

export async function startFakeGoogleChatApi(): Promise<FakeGoogleChatApi> {
  const chatKeys = await generateKeyPair('RS256');
  const oidcKeys = await generateKeyPair('RS256');
  const foreignKeys = await generateKeyPair('RS256');
  const accounts = new Map<string, KeyPair>();
  const issuedTokens = new Set<string>();
  const calls: ChatApiCall[] = [];
  const delivered: ChatApiCall[] = [];
  const messages = new Map<string, string>();
  const scripts: ChatResponseScript[] = [];
  let tokenRequests = 0;
  let counter = 0;
  let origin = '';

  const answerToken = async (req: IncomingMessage, res: ServerResponse) => {
    tokenRequests++;
    const form = new URLSearchParams(await readBody(req));
    const assertion = form.get('assertion') ?? '';
    // Which account's key to check the assertion with: the claim it makes, read before it is trusted.
    const issuer = (() => {
      try {
        return decodeJwt(assertion).iss ?? '';
      } catch {
        return '';
      }
    })();
    const account = accounts.get(issuer);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || account === undefined) {
      return sendJson(res, 400, { error: 'invalid_grant', error_description: 'unknown service account' });
    }
    try {
      const { payload } = await jwtVerify(assertion, account.publicKey, { issuer, audience: `${origin}/token` });
      if (payload.scope !== 'https://www.googleapis.com/auth/chat.bot') throw new Error('scope');
    } catch {
      return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    }
    const token = `ya29.fake-${randomUUID()}`;
    issuedTokens.add(token);
    sendJson(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  };

  const answerChat = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const call: ChatApiCall = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body: JSON.parse((await readBody(req)) || '{}') as ChatApiCall['body'],
    };
    calls.push(call);
    if (!issuedTokens.has(call.authorization?.replace(/^Bearer /, '') ?? '')) {
      return sendJson(res, 401, {
        error: { code: 401, message: 'Request had invalid credentials.', status: 'UNAUTHENTICATED' },
      });
    }
    const next = scripts.shift() ?? { status: 200 };
    if (next.gate !== undefined) await next.gate;
    if (res.destroyed) return;
    if (next.status !== 200) {
      return sendJson(
        res,
        next.status,
        { error: { code: next.status, message: 'scripted failure', status: 'SCRIPTED' } },
        next.headers,
      );
    }
    const creating = call.method === 'POST';
    const name = creating
      ? `${url.pathname.slice('/v1/'.length)}/fake-${++counter}`
      : url.pathname.slice('/v1/'.length);
    res.on('finish', () => {
      delivered.push(call);
      messages.set(name, call.body.text ?? '');
    });
    sendJson(res, 200, { name, text: call.body.text, thread: call.body.thread });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://google');
    const answer = async () => {
      if (req.method === 'GET' && url.pathname === '/jwks/chat')
        return sendJson(res, 200, await publicJwks(chatKeys, 'chat-1'));
      if (req.method === 'GET' && url.pathname === '/jwks/oidc')
        return sendJson(res, 200, await publicJwks(oidcKeys, 'oidc-1'));
      if (req.method === 'POST' && url.pathname === '/token') return answerToken(req, res);
      if (url.pathname.startsWith('/v1/spaces/')) return answerChat(req, res, url);
      sendJson(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
    };
    answer().catch(() => res.destroy());
  });
  ({ origin } = await listenOnLoopback(server));

  const settings = (timeoutMs = 5000): GoogleChatSettings => ({
    apiBaseUrl: origin,
    tokenUrl: `${origin}/token`,
    chatJwksUrl: `${origin}/jwks/chat`,
    oidcJwksUrl: `${origin}/jwks/oidc`,
    timeoutMs,
  });

  return {
    origin,
    settings,
    env: {
      GOOGLE_CHAT_API_BASE_URL: origin,
      GOOGLE_OAUTH_TOKEN_URL: `${origin}/token`,
      GOOGLE_CHAT_JWKS_URL: `${origin}/jwks/chat`,
      GOOGLE_OIDC_JWKS_URL: `${origin}/jwks/oidc`,
    },
    addServiceAccount: async () => {
      const pair = await generateKeyPair('RS256', { extractable: true });
      const email = `agent-${accounts.size + 1}@project.iam.gserviceaccount.com`;
      accounts.set(email, pair);
      return { email, privateKey: await exportPKCS8(pair.privateKey) };
    },
    signDelivery: async (options) => {
      const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1000);
      const keys = options.foreignKey === true ? foreignKeys : options.idToken === true ? oidcKeys : chatKeys;
      const claims = options.idToken === true ? { email: options.email ?? CHAT_ISSUER, email_verified: true } : {};
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.idToken === true ? 'oidc-1' : 'chat-1', typ: 'JWT' })
        .setIssuer(options.issuer ?? (options.idToken === true ? 'https://accounts.google.com' : CHAT_ISSUER))
        .setAudience(options.audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + (options.lifetimeSeconds ?? 3600))
        .sign(keys.privateKey);
      return `Bearer ${token}`;
    },
    calls,
    delivered,
    get tokenRequests() {
      return tokenRequests;
    },
    messages,
    revokeTokens: () => issuedTokens.clear(),
    script: (...responses) => {
      scripts.push(...responses);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
