import { randomUUID } from 'node:crypto';
import { makeRunAgentInput } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { holdRefusingPort } from '../testing/refusing-port.js';
import { startFileEngine } from '../testing/test-engine.js';

const RUN_INPUT = makeRunAgentInput('hello');

let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await startTestIssuer();
});

afterAll(async () => {
  await issuer?.close();
});

function getConfig(engine: RunningEngine, token?: string) {
  return fetch(
    `${engine.url}/agent/config`,
    token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  );
}

function postRun(engine: RunningEngine, token?: string) {
  return fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(RUN_INPUT),
  });
}

/** A 401 whose problem type is `invalid-token`, or `token-expired` for a token that only needs refreshing. */
async function expectInvalidToken(response: Response, description: RegExp, type = 'invalid-token') {
  expect(response.status).toBe(401);
  // A well-formed challenge: the description is one quoted string with no quote or backslash inside.
  expect(response.headers.get('www-authenticate')).toMatch(
    /^Bearer error="invalid_token", error_description="[^"\\]*"$/,
  );
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as { detail: string; type: string };
  expect(body.detail).toMatch(description);
  expect(body.type).toBe(`urn:agentplane:problem:${type}`);
}

describe('an engine protected by the agent SSO config, against a real oidc-provider', () => {
  let engine: RunningEngine;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    const sso = { issuer: issuer.issuer, audience: issuer.audience, algorithms: ['RS256' as const] };
    // No ENGINE_AUTH=disabled here: the agent's SSO config is what protects it.
    engine = await startFileEngine(makeLlmEngineConfig({ sso }), { env: { ENGINE_AUTH: 'oidc' } });
  });

  afterAll(async () => {
    await engine?.shutdown();
  });

  it('accepts a client-credentials access token the issuer minted, on runs and on the config', async () => {
    const token = await issuer.requestToken();
    const run = await postRun(engine, token);
    expect(run.status).toBe(200);
    expect(await run.text()).toContain('RUN_FINISHED');
    expect((await getConfig(engine, token)).status).toBe(200);
  });

  it('discovers the JWKS once and serves later tokens from its caches', async () => {
    for (let i = 0; i < 3; i++) expect((await getConfig(engine, await issuer.sign())).status).toBe(200);
    expect(issuer.hits('/.well-known/openid-configuration')).toBe(1);
    expect(issuer.hits('/jwks')).toBe(1);
  });

  it('answers 401 invalid_token without a token, on runs and on the config', async () => {
    await expectInvalidToken(await postRun(engine), /bearer token is required/);
    await expectInvalidToken(await getConfig(engine), /bearer token is required/);
  });

  it('answers 401 to an expired token, beyond the small clock tolerance, with a problem type of its own', async () => {
    const token = await issuer.sign({ iat: now() - 600, exp: now() - 120 });
    await expectInvalidToken(await postRun(engine, token), /expired/, 'token-expired');
    const response = await getConfig(engine, token);
    expect(response.headers.get('www-authenticate')).toMatch(/error_description="The token has expired"/);
    await expectInvalidToken(response, /expired/, 'token-expired');
  });

  it('accepts a token that expired within the clock tolerance', async () => {
    const token = await issuer.sign({ iat: now() - 600, exp: now() - 5 });
    expect((await getConfig(engine, token)).status).toBe(200);
  });

  it('answers 401 to a token that is not valid yet', async () => {
    await expectInvalidToken(await getConfig(engine, await issuer.sign({ nbf: now() + 600 })), /"nbf"/);
  });

  it('answers 401 to a token for another audience', async () => {
    await expectInvalidToken(await postRun(engine, await issuer.sign({ aud: 'urn:someone-else' })), /"aud"/);
  });

  it('answers 401 to a token from another issuer', async () => {
    await expectInvalidToken(await postRun(engine, await issuer.sign({ iss: 'https://evil.example.com' })), /"iss"/);
  });

  it('answers 401 to a token signed with a key the issuer does not publish', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' })
      .setIssuer(issuer.issuer)
      .setAudience(issuer.audience)
      .setExpirationTime('5m')
      .sign(privateKey);
    await expectInvalidToken(await postRun(engine, token), /key the issuer does not publish/);
  });

  it('answers 401 to an unsigned token (alg "none")', async () => {
    const token = new UnsecuredJWT({ sub: 'x' })
      .setIssuer(issuer.issuer)
      .setAudience(issuer.audience)
      .setExpirationTime('5m')
      .encode();
    await expectInvalidToken(await postRun(engine, token), /not allowed/);
  });

  it('answers 401 to an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256', kid: issuer.kid })
      .setIssuer(issuer.issuer)
      .setAudience(issuer.audience)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(issuer.publicKeyPem));
    await expectInvalidToken(await postRun(engine, token), /not allowed/);
  });

  it('answers 401 to a token without an expiry', async () => {
    await expectInvalidToken(await postRun(engine, await issuer.sign({ exp: undefined })), /"exp"/);
  });

  it('answers 401 to a malformed Authorization header', async () => {
    const response = await fetch(`${engine.url}/agent/config`, { headers: { Authorization: 'Basic abc' } });
    await expectInvalidToken(response, /bearer token is required/);
  });
});

describe('allowed emails and domains', () => {
  let engine: RunningEngine;

  beforeAll(async () => {
    const sso = {
      issuer: issuer.issuer,
      audience: issuer.audience,
      allowedEmails: ['ada@example.com'],
      allowedDomains: ['agents.example.org'],
    };
    engine = await startFileEngine(makeLlmEngineConfig({ sso }));
  });

  afterAll(async () => {
    await engine?.shutdown();
  });

  const verified = (email: string) => issuer.sign({ email, email_verified: true });

  it('admits a verified allowed email, a verified email of an allowed domain, and nobody else (403)', async () => {
    expect((await getConfig(engine, await verified('Ada@example.com'))).status).toBe(200);
    expect((await getConfig(engine, await verified('bob@agents.example.org'))).status).toBe(200);
    const stranger = await getConfig(engine, await verified('bob@example.com'));
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await getConfig(engine, await issuer.sign())).status).toBe(403);
  });

  it.each([
    ['false', { email_verified: false }],
    ['absent', {}],
    ['the string "true"', { email_verified: 'true' }],
  ])('refuses an allowed email whose email_verified is %s (403)', async (_name, claims) => {
    for (const email of ['ada@example.com', 'bob@agents.example.org']) {
      expect((await getConfig(engine, await issuer.sign({ email, ...claims }))).status).toBe(403);
    }
  });
});

describe('where the OIDC settings come from', () => {
  it('falls back to ENGINE_OIDC_* when the agent has no SSO config', async () => {
    const engine = await startFileEngine(makeLlmEngineConfig(), {
      env: { ENGINE_AUTH: 'oidc', ENGINE_OIDC_ISSUER: issuer.issuer, ENGINE_OIDC_AUDIENCE: issuer.audience },
    });
    try {
      expect((await getConfig(engine)).status).toBe(401);
      expect((await getConfig(engine, await issuer.sign())).status).toBe(200);
    } finally {
      await engine.shutdown();
    }
  });

  it('skips discovery when the JWKS address is configured', async () => {
    const discoveries = issuer.hits('/.well-known/openid-configuration');
    const engine = await startFileEngine(
      makeLlmEngineConfig({
        sso: { issuer: issuer.issuer, audience: issuer.audience, jwksUri: `${issuer.issuer}/jwks` },
      }),
    );
    try {
      expect((await getConfig(engine, await issuer.sign())).status).toBe(200);
      expect(issuer.hits('/.well-known/openid-configuration')).toBe(discoveries);
    } finally {
      await engine.shutdown();
    }
  });

  it('fails closed with no OIDC settings at all unless ENGINE_AUTH=disabled', async () => {
    const closed = await startFileEngine(makeLlmEngineConfig(), { env: { ENGINE_AUTH: 'oidc' } });
    const open = await startFileEngine(makeLlmEngineConfig());
    try {
      const refused = await postRun(closed, await issuer.sign());
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/no OIDC configuration/);
      expect((await postRun(open)).status).toBe(200);
    } finally {
      await Promise.all([closed.shutdown(), open.shutdown()]);
    }
  });

  it('answers 503, not 401, when the issuer cannot be reached to fetch its keys', async () => {
    const unreachable = await holdRefusingPort();
    const sso = { issuer: unreachable.origin, audience: 'agents' };
    let engine: RunningEngine | undefined;
    try {
      engine = await startFileEngine(makeLlmEngineConfig({ sso, agentId: randomUUID() }));
      const response = await getConfig(engine, await issuer.sign({ iss: sso.issuer, aud: sso.audience }));
      expect(response.status).toBe(503);
    } finally {
      await engine?.shutdown();
      await unreachable.release();
    }
  });
});
