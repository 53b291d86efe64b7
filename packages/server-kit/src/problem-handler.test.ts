import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { AppError } from './app-error.js';
import { createLogger } from './logger.js';
import { notFoundHandler, problemHandler } from './problem-handler.js';
import { requestLogger } from './request-logger.js';

function makeApp() {
  const app = express();
  app.use(requestLogger(createLogger({ name: 'test', level: 'silent' })));
  app.use(express.json({ limit: '1mb' }));
  app.post('/echo', (req, res) => {
    res.json(req.body);
  });
  app.get('/conflict', () => {
    throw new AppError('conflict', 'Still used by 2 agents.', { headers: { 'Retry-After': '1' } });
  });
  app.get('/invalid', () => {
    z.strictObject({ name: z.string() }).parse({ name: 1, extra: true });
  });
  app.get('/items/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  app.get('/crash', async () => {
    throw new Error('relation "secret_table" does not exist at Object.<anonymous> (/srv/app.js:1:1)');
  });
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}

function expectProblem(response: request.Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status, type: expect.stringMatching(/^urn:agentplane:problem:/) });
  expect(typeof response.body.title).toBe('string');
  expect(typeof response.body.detail).toBe('string');
}

describe('problemHandler', () => {
  it('renders an AppError with its status, detail and headers', async () => {
    const response = await request(makeApp()).get('/conflict');
    expectProblem(response, 409);
    expect(response.body.detail).toBe('Still used by 2 agents.');
    expect(response.headers['retry-after']).toBe('1');
  });

  it('turns a zod error into 422 with one entry per field, unknown fields named', async () => {
    const response = await request(makeApp()).get('/invalid');
    expectProblem(response, 422);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'name', message: expect.any(String) },
        { path: 'extra', message: expect.stringContaining('extra') },
      ]),
    );
  });

  it('answers malformed JSON with 400', async () => {
    const response = await request(makeApp()).post('/echo').set('Content-Type', 'application/json').send('{"name": ');
    expectProblem(response, 400);
    expect(response.body.detail).toBe('The request body is not valid JSON.');
  });

  it('answers a body over 1 MiB with 413', async () => {
    const response = await request(makeApp())
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ blob: 'x'.repeat(1024 * 1024 + 1) }));
    expectProblem(response, 413);
  });

  it.each(['%C0%AF', '%ZZ', '%FF%FE', '%'])(
    'answers a path parameter %s that is not percent-encoded UTF-8 with 400',
    async (id) => {
      const response = await request(makeApp()).get(`/items/${id}`);
      expectProblem(response, 400);
      expect(response.body.detail).toBe('The request path is not valid percent-encoded UTF-8.');
    },
  );

  it('hides the message and stack of an unexpected error behind a generic 500', async () => {
    const response = await request(makeApp()).get('/crash');
    expectProblem(response, 500);
    expect(response.body.detail).toBe('An unexpected error occurred.');
    expect(response.text).not.toMatch(/secret_table|app\.js|at Object/);
  });

  it('answers an unknown route with 404 problem+json', async () => {
    const response = await request(makeApp()).get('/nope');
    expectProblem(response, 404);
  });

  it('echoes a plain X-Request-Id and replaces one that could forge log lines', async () => {
    const kept = await request(makeApp()).get('/nope').set('X-Request-Id', 'abc-123');
    expect(kept.headers['x-request-id']).toBe('abc-123');
    expect(kept.body.request_id).toBe('abc-123');
    const replaced = await request(makeApp()).get('/nope').set('X-Request-Id', 'a b\tfake\\x"');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
