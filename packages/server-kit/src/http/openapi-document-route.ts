// The route every service serves its own OpenAPI document at, described once.
import { z } from 'zod';
import type { RouteSpec } from './spec-router.js';

export const OPENAPI_DOCUMENT_ROUTE = {
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  tag: 'meta',
  access: { kind: 'public' },
  responses: { 200: { description: 'The OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
} satisfies RouteSpec<{ kind: 'public' }>;
