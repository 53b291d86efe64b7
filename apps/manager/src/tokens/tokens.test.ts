import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import request from 'supertest';
import { createManagerApp } from '../app.js';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let server: Server;
let issuer: string;
beforeAll(async () => {
  // The issuer URL is the server's own, so the server listens first and gets its app once that is built.
  server = createServer((req, res) => ctx.app(req, res));
  issuer = (await listenOnLoopback(server)).origin;
  ctx = await startManagerTestApp({ ISSUER_URL: issuer, AGENT_TOKEN_TTL_SECONDS: '120' });
});
afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await ctx?.close();
});

async function agentOf(user: Awaited<ReturnType<typeof signUpUser>>): Promise<string> {
  const response = await user.agent.post('/api/v1/agents/').send(agentBody());
  expect(response.status).toBe(201);
  return response.body.id;
}

describe('agent access tokens', () => {
  it('mints a short-lived ES256 token for the agent that verifies against the published JWKS', async () => {
    const user = await signUpUser(ctx.app);
    const agentId = await agentOf(user);
    const response = await user.agent.post(`/api/v1/agents/${agentId}/token`);
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 120 });

    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      jwks_uri: string;
    };
    expect(discovery).toMatchObject({ issuer, jwks_uri: `${issuer}/.well-known/jwks.json` });
    const { payload, protectedHeader } = await jwtVerify(
      response.body.access_token,
      createRemoteJWKSet(new URL(discovery.jwks_uri)),
      { issuer, audience: agentId, algorithms: ['ES256'] },
    );
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: user.userId, email: user.email, workspace_id: user.workspaceId });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
    await expect(
      jwtVerify(response.body.access_token, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
        issuer,
        audience: randomUUID(),
      }),
    ).rejects.toThrow();
  });

  it('lets a viewer mint, and refuses other workspaces, unknown agents and anonymous callers', async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = await agentOf(owner);
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    expect(
      (await viewer.agent.post(`/api/v1/agents/${agentId}/token`).set('x-workspace-id', owner.workspaceId)).status,
    ).toBe(201);

    const stranger = await signUpUser(ctx.app);
    expectProblemShape(await stranger.agent.post(`/api/v1/agents/${agentId}/token`), 404);
    expectProblemShape(await owner.agent.post(`/api/v1/agents/${randomUUID()}/token`), 404);
    expectProblemShape(await owner.agent.post('/api/v1/agents/nope/token'), 400);
    expectProblemShape(await request(ctx.app).post(`/api/v1/agents/${agentId}/token`), 401);
  });

  it('keeps one key across app instances, with its private half sealed at rest', async () => {
    const user = await signUpUser(ctx.app);
    const agentId = await agentOf(user);
    const first = await user.agent.post(`/api/v1/agents/${agentId}/token`);
    const secondApp = createManagerApp({
      config: ctx.config,
      db: ctx.database.prisma,
      logger: createLogger({ name: 'test', level: 'silent' }),
    });
    const login = request.agent(secondApp);
    await login.post('/api/v1/auth/login').send({ email: user.email, password: user.password });
    const second = await login.post(`/api/v1/agents/${agentId}/token`);
    expect(decodeProtectedHeader(second.body.access_token).kid).toBe(
      decodeProtectedHeader(first.body.access_token).kid,
    );

    const rows = await ctx.database.prisma.signingKey.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.privateJwk.startsWith('enc:v1:')).toBe(true);
    const jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: rows[0]?.kid, alg: 'ES256', use: 'sig', kty: 'EC' })]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});
