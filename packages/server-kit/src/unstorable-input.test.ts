import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { problemHandler } from './problem-handler.js';
import { refuseUnstorableInput } from './unstorable-input.js';

function makeApp() {
  const app = express();
  app.use(express.json());
  app.use(refuseUnstorableInput({ maxBodyDepth: 4 }));
  app.all('/echo', (req, res) => {
    res.json({ body: req.body ?? null, query: req.query });
  });
  app.use(problemHandler);
  return app;
}

/** Sends raw JSON text, so that escapes such as \u0000 and lone surrogates reach the server as written. */
function postJson(text: string) {
  return request(makeApp()).post('/echo').set('Content-Type', 'application/json').send(text);
}

describe('refuseUnstorableInput', () => {
  it('lets ordinary bodies and queries through unchanged', async () => {
    const response = await postJson('{"name":"café 😀","list":[{"a":1}]}').query({ limit: '5' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ body: { name: 'café 😀', list: [{ a: 1 }] }, query: { limit: '5' } });
  });

  it.each([
    ['a NUL in a string', '{"a":{"b":"x\\u0000y"}}', 'a.b'],
    ['a NUL in a key', '{"a":{"k\\u0000":1}}', 'a["k\\u0000"]'],
    ['a lone surrogate in a string', '{"a":["ok","\\ud800"]}', 'a[1]'],
    ['a lone surrogate in a key', '{"\\udc00":1}', '["\\udc00"]'],
    ['a __proto__ key', '{"headers":{"__proto__":"x"}}', 'headers.__proto__'],
    ['nesting past the limit', '{"a":{"b":{"c":{"d":{}}}}}', 'a.b.c.d'],
  ])('answers 422 naming the path for %s', async (_what, text, path) => {
    const response = await postJson(text);
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.errors).toEqual([{ path, message: expect.any(String) }]);
  });

  it('refuses a body nested 10,000 deep without exhausting the stack', async () => {
    const response = await postJson(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    expect(response.status).toBe(422);
  });

  // Percent-decoding never yields a lone surrogate (an encoded one becomes U+FFFD), so NUL is what can arrive.
  it('answers 400 for a NUL in a query value or name', async () => {
    for (const query of ['q=a%00b', 'a%00=1']) {
      const response = await request(makeApp()).get(`/echo?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});
