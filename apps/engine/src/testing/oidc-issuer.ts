// A real OIDC issuer for tests: oidc-provider on loopback, issuing client-credentials access tokens as
// JWTs for one audience (through resource indicators), plus a signer for hand-made tokens with the
// issuer's own key, so each failure class can be produced on purpose.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export const TEST_AUDIENCE = 'urn:agentplane:engine';
const CLIENT = { client_id: 'engine-tests', client_secret: 'engine-tests-secret' };

export type TestIssuer = {
  issuer: string;
  audience: string;
  /** Requests seen per path, to prove discovery and JWKS are cached. */
  hits: (path: string) => number;
  /** A client-credentials access token from the provider's token endpoint. */
  requestToken: () => Promise<string>;
  /** A token signed with the issuer's key and kid: valid unless `claims` override iss, aud, exp… */
  sign: (claims?: JWTPayload) => Promise<string>;
  publicKeyPem: string;
  kid: string;
  close: () => Promise<void>;
};

export async function startTestIssuer(): Promise<TestIssuer> {
  const hits = new Map<string, number>();
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    handle(req, res);
  });
  const issuer = (await listenOnLoopback(server)).origin;

  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    clients: [{ ...CLIENT, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
    jwks: { keys: [privateJwk] },
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => TEST_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'agent:run',
          audience: TEST_AUDIENCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  handle = provider.callback();

  const sign: TestIssuer['sign'] = (claims = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: 'test-client', iss: issuer, aud: TEST_AUDIENCE, iat: now, exp: now + 300, ...claims };
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
  };

  return {
    issuer,
    audience: TEST_AUDIENCE,
    hits: (path) => hits.get(path) ?? 0,
    requestToken: async () => {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from(`${CLIENT.client_id}:${CLIENT.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: TEST_AUDIENCE, scope: 'agent:run' }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || body.access_token === undefined) {
        throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    sign,
    publicKeyPem: await exportSPKI(publicKey),
    kid,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
