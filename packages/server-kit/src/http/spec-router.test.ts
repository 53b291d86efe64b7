import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { AppError } from '../app-error.js';
import { problemHandler } from '../problem-handler.js';
import { type RouteSpec, SpecRouter } from './spec-router.js';

type Access = { kind: 'open' } | { kind: 'closed' };

const ITEM = {
  method: 'post',
  path: '/items/:id',
  operationId: 'postItem',
  summary: 'An item',
  tag: 'items',
  access: { kind: 'closed' },
  params: z.object({ id: z.uuid() }),
  query: z.object({ limit: z.coerce.number().int().max(10).default(5) }),
  body: z.strictObject({ name: z.string().min(1) }),
  responses: { 200: { description: 'Echoed' } },
  problems: { 404: 'No such item' },
} satisfies RouteSpec<Access>;

function appWith(api: SpecRouter<Access>) {
  const app = express();
  app.use(express.json());
  app.use('/v1', api.router);
  app.use(problemHandler);
  return app;
}

const api = new SpecRouter<Access>({
  middleware: ({ access }) => [
    (req, _res, next) => {
      if (access.kind === 'closed' && req.get('authorization') !== 'yes') throw new AppError('unauthorized', 'No.');
      next();
    },
  ],
  describeAccess: (access) => ({ authenticated: access.kind === 'closed', workspaceScoped: false }),
  pathPrefix: '/v1',
});
api.add(ITEM, (input, _req, res) => {
  res.json(input);
});
const app = appWith(api);
const id = '6f1c2a7e-3b1d-4c55-9a57-0d6a3f4e2b10';

describe('SpecRouter', () => {
  it('hands the handler its path, query and body, parsed by their schemas', async () => {
    const response = await request(app).post(`/v1/items/${id}`).set('authorization', 'yes').send({ name: 'a' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ params: { id }, query: { limit: 5 }, body: { name: 'a' } });
  });

  it('runs the access check before any input is read', async () => {
    const response = await request(app).post('/v1/items/not-a-uuid').send({});
    expect(response.status).toBe(401);
  });

  it('answers 400 for a bad path or query, and 422 for a bad body, naming the field', async () => {
    const post = (path: string, body: object) => request(app).post(path).set('authorization', 'yes').send(body);
    const badPath = await post('/v1/items/not-a-uuid', { name: 'a' });
    expect(badPath.status).toBe(400);
    expect(badPath.body.errors).toEqual([expect.objectContaining({ path: 'id' })]);
    expect((await post(`/v1/items/${id}?limit=99`, { name: 'a' })).status).toBe(400);
    const badBody = await post(`/v1/items/${id}`, { name: '', extra: 1 });
    expect(badBody.status).toBe(422);
  });

  it('describes each route for the OpenAPI document, with the prefix and {param} placeholders', () => {
    expect(api.routes).toEqual([
      expect.objectContaining({
        method: 'post',
        path: '/v1/items/{id}',
        operationId: 'postItem',
        authenticated: true,
        workspaceScoped: false,
        params: ITEM.params,
        query: ITEM.query,
        body: ITEM.body,
        problems: { 404: 'No such item' },
      }),
    ]);
  });
});
