import type { OpenApiDocument } from '@agentplane/contracts';
import helmet from 'helmet';
import swaggerUi from 'swagger-ui-express';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { createManagerOpenApi } from './manager-openapi.js';

const DOCUMENT_URL = '/api/v1/openapi.json';

/** Serves the document built from every registered route, and the interactive reference beside it. */
export function addOpenApiRoutes(api: ApiRouter, options: { sessionCookie: string }): void {
  // Built on first request: by then every feature has registered its routes.
  let document: OpenApiDocument | undefined;
  api.add(
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      tag: 'meta',
      access: { kind: 'public' },
      responses: { 200: { description: 'The OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
    },
    (_input, _req, res) => {
      document ??= createManagerOpenApi(api.routes, options);
      res.json(document);
    },
  );
  const uiOptions = { swaggerOptions: { url: DOCUMENT_URL } };
  api.router.use(
    '/docs',
    // swagger-ui's page carries an inline style block; everything else stays same-origin.
    helmet({ contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"] } } }),
    swaggerUi.serveFiles(undefined, uiOptions),
    swaggerUi.setup(undefined, uiOptions),
  );
}
