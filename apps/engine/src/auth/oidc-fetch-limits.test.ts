// What a token can make the engine fetch: a failed discovery or JWKS fetch is remembered for
// ENGINE_OIDC_FAILURE_CACHE_MS, so a flood of forged tokens costs the issuer one request, and
// discovery documents and key sets larger than their caps are failures (503), not read to the end.
import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { RunningEngine } from '../start-engine.js';
import { type CountingServer, startCountingServer } from '../testing/counting-server.js';
import { makeLlmEngineConfig, type TestConfigOptions } from '../testing/engine-configs.js';
import { startFileEngine } from '../testing/test-engine.js';
import { MAX_DISCOVERY_BYTES, MAX_JWKS_BYTES } from './jwks-resolver.js';

const AUDIENCE = 'agents';
const KID = 'test-key';
let keys: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  keys = await generateKeyPair('ES256', { extractable: true });
});

const tokenFrom = (issuer: string) =>
  new SignJWT({ sub: 'someone' })
    .setProtectedHeader({ alg: 'ES256', kid: KID })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(keys.privateKey);

const getConfig = async (engine: RunningEngine, token: string) =>
  fetch(`${engine.url}/agent/config`, { headers: { Authorization: `Bearer ${token}` } });

async function withEngine(
  sso: TestConfigOptions['sso'],
  env: Record<string, string>,
  use: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  const engine = await startFileEngine(makeLlmEngineConfig({ sso }), { env: { ENGINE_AUTH: 'oidc', ...env } });
  try {
    await use(engine);
  } finally {
    await engine.shutdown();
  }
}

describe('an issuer whose discovery or JWKS fails', () => {
  let issuer: CountingServer;
  beforeAll(async () => {
    issuer = await startCountingServer();
  });
  afterAll(async () => {
    await issuer?.close();
  });

  it('is asked once for its discovery document by 20 forged tokens, each answered 503', async () => {
    await withEngine({ issuer: issuer.origin, audience: AUDIENCE }, {}, async (engine) => {
      const before = issuer.requests();
      for (let i = 0; i < 20; i++) expect((await getConfig(engine, await tokenFrom(issuer.origin))).status).toBe(503);
      expect(issuer.requests() - before).toBe(1);
    });
  });

  it('is asked once for its JWKS by 20 forged tokens when the JWKS address is configured', async () => {
    const sso = { issuer: 'https://login.example.com', audience: AUDIENCE, jwksUri: `${issuer.origin}/jwks` };
    await withEngine(sso, {}, async (engine) => {
      const before = issuer.requests();
      const token = await tokenFrom(sso.issuer);
      for (let i = 0; i < 20; i++) expect((await getConfig(engine, token)).status).toBe(503);
      expect(issuer.requests() - before).toBe(1);
    });
  });

  it('is asked again at each token when ENGINE_OIDC_FAILURE_CACHE_MS is 0', async () => {
    await withEngine(
      { issuer: issuer.origin, audience: AUDIENCE },
      { ENGINE_OIDC_FAILURE_CACHE_MS: '0' },
      async (engine) => {
        const before = issuer.requests();
        for (let i = 0; i < 3; i++) expect((await getConfig(engine, await tokenFrom(issuer.origin))).status).toBe(503);
        expect(issuer.requests() - before).toBe(3);
      },
    );
  });
});

describe('the size of what an issuer answers', () => {
  let server: Server;
  let origin: string;
  // What the issuer pads its discovery document and its JWKS with, set by each test.
  const padding = { discovery: 0, jwks: 0 };

  beforeAll(async () => {
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: KID, alg: 'ES256', use: 'sig' };
    server = createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer: origin, jwks_uri: `${origin}/jwks`, padding: 'x'.repeat(padding.discovery) }));
      } else if (req.url === '/jwks') {
        res.end(JSON.stringify({ keys: [jwk], padding: 'x'.repeat(padding.jwks) }));
      } else {
        res.writeHead(404).end();
      }
    });
    origin = (await listenOnLoopback(server)).origin;
  });

  afterAll(async () => {
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const statusWith = async (discovery: number, jwks: number) => {
    Object.assign(padding, { discovery, jwks });
    let status = 0;
    await withEngine({ issuer: origin, audience: AUDIENCE }, {}, async (engine) => {
      status = (await getConfig(engine, await tokenFrom(origin))).status;
    });
    return status;
  };

  it('accepts documents just under the caps', async () => {
    expect(await statusWith(MAX_DISCOVERY_BYTES - 1024, MAX_JWKS_BYTES - 1024)).toBe(200);
  });

  it(`answers 503 when the discovery document is larger than ${MAX_DISCOVERY_BYTES} bytes`, async () => {
    expect(await statusWith(MAX_DISCOVERY_BYTES, 0)).toBe(503);
  });

  it(`answers 503 when the JWKS is larger than ${MAX_JWKS_BYTES} bytes`, async () => {
    expect(await statusWith(0, MAX_JWKS_BYTES)).toBe(503);
  });
});
