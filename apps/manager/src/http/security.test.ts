import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';

const FRONTEND = 'https://app.example.test';
let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp({ CORS_ORIGINS: FRONTEND });
});
afterAll(() => ctx?.close());

describe('cross-site protection', () => {
  it('refuses a form post that rides the session cookie (415)', async () => {
    const user = await signUpUser(ctx.app);
    const response = await user.agent
      .post('/api/v1/workspaces/')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('name=evil');
    expectProblemShape(response, 415);
    const textPlain = await user.agent
      .post('/api/v1/workspaces/')
      .set('Content-Type', 'text/plain')
      .send('{"name":"x"}');
    expectProblemShape(textPlain, 415);
  });

  it('refuses a state-changing request from a foreign origin (403) but not a read', async () => {
    const user = await signUpUser(ctx.app);
    const write = await user.agent
      .post('/api/v1/workspaces/')
      .set('Origin', 'https://evil.example')
      .send({ name: 'x' });
    expectProblemShape(write, 403);
    expect((await user.agent.get('/api/v1/auth/me').set('Origin', 'https://evil.example')).status).toBe(200);
  });

  it('accepts the allow-listed origin and its own origin, with CORS credentials for the allow-list only', async () => {
    const user = await signUpUser(ctx.app);
    const allowed = await user.agent.post('/api/v1/workspaces/').set('Origin', FRONTEND).send({ name: 'from app' });
    expect(allowed.status).toBe(201);
    expect(allowed.headers['access-control-allow-origin']).toBe(FRONTEND);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(allowed.headers['access-control-expose-headers']).toContain('X-Total-Count');

    const own = await user.agent
      .post('/api/v1/workspaces/')
      .set('Origin', 'http://manager.local')
      .set('Host', 'manager.local')
      .send({ name: 'own' });
    expect(own.status).toBe(201);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();

    const preflight = await request(ctx.app)
      .options('/api/v1/workspaces/')
      .set('Origin', FRONTEND)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-workspace-id');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/x-workspace-id/i);
  });

  it('lets a body-less DELETE through without a content type', async () => {
    const user = await signUpUser(ctx.app);
    const created = await user.agent.post('/api/v1/workspaces/').send({ name: 'to delete' });
    expect((await user.agent.delete(`/api/v1/workspaces/${created.body.id}`)).status).toBe(204);
  });
});

describe('request hygiene', () => {
  it('answers 413 to a body over 1 MiB and 400 to malformed JSON', async () => {
    const user = await signUpUser(ctx.app);
    const huge = await user.agent
      .post('/api/v1/workspaces/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }));
    expectProblemShape(huge, 413);
    const malformed = await user.agent
      .post('/api/v1/workspaces/')
      .set('Content-Type', 'application/json')
      .send('{"name"');
    expectProblemShape(malformed, 400);
  });

  it('answers an unknown route with 404 problem+json', async () => {
    expectProblemShape(await request(ctx.app).get('/api/v1/no-such-thing'), 404);
    expectProblemShape(await request(ctx.app).get('/elsewhere'), 404);
  });

  it('sends helmet security headers and no X-Powered-By', async () => {
    const response = await request(ctx.app).get('/api/v1/healthz');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['strict-transport-security']).toBeDefined();
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});
