import type { OpenApiDocument } from '@agentplane/contracts';
import { OPENAPI_DOCUMENT_ROUTE } from '@agentplane/server-kit';
import helmet from 'helmet';
import swaggerUi from 'swagger-ui-express';
import type { ApiRouter } from '../http/api-router.js';
import { createManagerOpenApi } from './manager-openapi.js';

const DOCUMENT_URL = '/api/v1/openapi.json';

/** Serves the document built from every registered route, and the interactive reference beside it. */
export function addOpenApiRoutes(api: ApiRouter, options: { sessionCookie: string }): void {
  // Built on first request: by then every feature has registered its routes.
  let document: OpenApiDocument | undefined;
  api.add(OPENAPI_DOCUMENT_ROUTE, (_input, _req, res) => {
    document ??= createManagerOpenApi(api.routes, options);
    res.json(document);
  });
  const uiOptions = { swaggerOptions: { url: DOCUMENT_URL } };
  api.router.use(
    '/docs',
    // swagger-ui's page carries an inline style block; everything else stays same-origin.
    helmet({ contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"] } } }),
    swaggerUi.serveFiles(undefined, uiOptions),
    swaggerUi.setup(undefined, uiOptions),
  );
}
