import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { loadManagerConfig } from '../config.js';
import { expectProblemShape, type ManagerTestContext, startManagerTestApp } from '../testing/manager-test-app.js';

const INDEX = '<!doctype html><title>console</title><script type="module" src="/assets/index-abc123.js"></script>';
let dir: string;
let ctx: ManagerTestContext;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'console-dist-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), INDEX);
  await writeFile(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  ctx = await startManagerTestApp({
    CONSOLE_DIR: dir,
    CONSOLE_ENGINE_SOURCES: 'http://localhost:*, https://*.engines.example.com',
  });
});
afterAll(async () => {
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the web console at /', () => {
  it('serves index.html, uncached, with a CSP that allows only its own scripts and the listed engines', async () => {
    const response = await request(ctx.app).get('/').set('Accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.text).toBe(INDEX);
    expect(response.headers['cache-control']).toBe('no-cache');
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self' http://localhost:* https://*.engines.example.com");
    expect(csp).toContain("frame-ancestors 'self'");
  });

  it("answers the app's deep links with index.html, so a reload of /agents/<id> works", async () => {
    const response = await request(ctx.app)
      .get('/agents/6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11')
      .set('Accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.text).toBe(INDEX);
  });

  it('serves hashed assets as immutable and other files as no-cache; a missing asset is a 404, not the page', async () => {
    const asset = await request(ctx.app).get('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await request(ctx.app).get('/favicon.svg')).headers['cache-control']).toBe('no-cache');
    expectProblemShape(await request(ctx.app).get('/assets/index-gone.js').set('Accept', 'text/html'), 404);
  });

  it('leaves the API its own answers: unknown API paths, requests not for a page, and non-GET requests stay problem+json', async () => {
    expectProblemShape(await request(ctx.app).get('/metrics'), 404);
    expectProblemShape(await request(ctx.app).get('/agents').set('Accept', 'application/json'), 404);
    expectProblemShape(await request(ctx.app).get('/api/v1/no-such-thing').set('Accept', 'text/html'), 404);
    expectProblemShape(await request(ctx.app).get('/.well-known/nothing').set('Accept', 'text/html'), 404);
    expectProblemShape(await request(ctx.app).post('/agents').set('Content-Type', 'application/json').send({}), 404);
    expect((await request(ctx.app).get('/api/v1/healthz')).status).toBe(200);
  });

  it('is not served when the console is not built, and the API works as before', async () => {
    const without = await startManagerTestApp({ CONSOLE_DIR: path.join(dir, 'missing') });
    try {
      expectProblemShape(await request(without.app).get('/').set('Accept', 'text/html'), 404);
      expect((await request(without.app).get('/api/v1/healthz')).status).toBe(200);
    } finally {
      await without.close();
    }
  });

  it('refuses CONSOLE_ENGINE_SOURCES that are not plain host sources, naming the variable', () => {
    const env = { DATABASE_URL: 'postgresql://localhost/x', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') };
    for (const bad of ["https://a.example.com; script-src 'unsafe-inline'", "'unsafe-eval'", 'ftp://x.example.com']) {
      expect(() => loadManagerConfig({ ...env, CONSOLE_ENGINE_SOURCES: bad })).toThrow(/CONSOLE_ENGINE_SOURCES/);
    }
  });
});
