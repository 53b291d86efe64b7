import type { Db } from '@agentplane/db';
import { Router } from 'express';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { currentUserId, currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { mintAgentToken } from './agent-tokens.js';
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys.js';

export type TokenDependencies = { db: Db; keys: SigningKeys; issuer: string; ttlSeconds: number };

export const ZAgentToken = z
  .strictObject({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
  })
  .meta({ id: 'AgentToken' });

export function addAgentTokenRoute(api: ApiRouter, deps: TokenDependencies): void {
  api.add(
    {
      method: 'post',
      path: '/agents/:id/token',
      operationId: 'createAgentToken',
      summary: "A short-lived bearer token for this agent's engine (aud = the agent id)",
      tag: 'agents',
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      responses: { 201: { description: 'A signed JWT for the engine', schema: ZAgentToken } },
      problems: { 404: 'No agent with this id in the workspace' },
    },
    async ({ params }, req, res) => {
      const token = await mintAgentToken({
        ...deps,
        workspaceId: currentWorkspace(req).id,
        agentId: params.id,
        userId: currentUserId(req),
      });
      res.status(201).set('Cache-Control', 'no-store').json(token);
    },
  );
}

/** OIDC discovery and JWKS, so that engines verify manager tokens like any other issuer's. */
export function wellKnownRouter(deps: TokenDependencies): Router {
  const router = Router();
  router.get('/.well-known/openid-configuration', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json({
      issuer: deps.issuer,
      jwks_uri: `${deps.issuer}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
      token_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['token'],
      subject_types_supported: ['public'],
    });
  });
  router.get('/.well-known/jwks.json', async (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json({ keys: await deps.keys.publicJwks() });
  });
  return router;
}
