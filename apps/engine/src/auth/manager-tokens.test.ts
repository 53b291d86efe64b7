import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { startFileEngine } from '../testing/test-engine.js';

// A stand-in for the manager's /.well-known endpoints: an ES256 key published by discovery and JWKS.
let server: Server;
let issuer: string;
let privateKey: CryptoKey;
const kid = 'manager-key';

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' };
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/.well-known/jwks.json` }));
    } else if (req.url === '/.well-known/jwks.json') {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  issuer = (await listenOnLoopback(server)).origin;
});

afterAll(async () => {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function mint(claims: JWTPayload, alg = 'ES256') {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'user-1', iss: issuer, iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg, kid })
    .sign(privateKey);
}

describe('tokens the manager mints', () => {
  it('are accepted for this agent, next to the agent SSO config, and refused for another agent or issuer', async () => {
    const config = makeLlmEngineConfig({ sso: { issuer: 'https://login.example.com', audience: 'agents' } });
    const engine = await startFileEngine(config, { env: { ENGINE_AUTH: 'oidc', ENGINE_MANAGER_ISSUER: issuer } });
    const getConfig = async (token: string) =>
      fetch(`${engine.url}/agent/config`, { headers: { Authorization: `Bearer ${token}` } });
    try {
      expect((await getConfig(await mint({ aud: config.agent.id }))).status).toBe(200);
      const otherAgent = await getConfig(await mint({ aud: randomUUID() }));
      expect(otherAgent.status).toBe(401);
      expect(otherAgent.headers.get('www-authenticate')).toMatch(/invalid_token/);
      const otherIssuer = await getConfig(await mint({ aud: config.agent.id, iss: 'https://evil.example.com' }));
      expect(otherIssuer.status).toBe(401);
      expect(((await otherIssuer.json()) as { detail: string }).detail).toMatch(/"iss" claim is not accepted/);
    } finally {
      await engine.shutdown();
    }
  });

  it('are not trusted unless ENGINE_MANAGER_ISSUER names the manager', async () => {
    const config = makeLlmEngineConfig({ sso: { issuer: 'https://login.example.com', audience: 'agents' } });
    const engine = await startFileEngine(config, { env: { ENGINE_AUTH: 'oidc' } });
    try {
      const response = await fetch(`${engine.url}/agent/config`, {
        headers: { Authorization: `Bearer ${await mint({ aud: config.agent.id })}` },
      });
      expect(response.status).toBe(401);
    } finally {
      await engine.shutdown();
    }
  });
});
