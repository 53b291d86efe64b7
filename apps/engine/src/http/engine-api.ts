// One agent's engine API, each route declared once (server-kit's SpecRouter): the declaration drives its
// access check, its input validation and its entry in the engine's OpenAPI document.
import { JSON_MAX_DEPTH } from '@agentplane/contracts';
import { type RouteSpec, refuseUnstorableInput, SpecRouter, type SpecRouterOptions } from '@agentplane/server-kit';
import express, { type RequestHandler } from 'express';
import { requireBearer, requireBearerNaming } from '../auth/require-bearer.js';
import { resourceMetadataUrl } from '../mcp-server/protected-resource.js';
import { type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { publicOrigin } from './public-origin.js';

/**
 * public: anyone, without the agent's config leased (the route reads what it needs itself).
 * webhook: anyone; the agent's config is leased and the handler checks what the provider sends
 * (a verify token, a signature over the raw body, which `body: 'raw'` keeps as bytes: JSON only, or
 * of any content type with `body: 'raw-any'`, as Slack's form-encoded button presses are).
 * bearer: a token the agent's auth settings accept, checked before the body is read; `body: 'json'`
 * reads a JSON body after that, within the agent's run input limit; `challenge: 'mcp'` names the MCP
 * endpoint's resource metadata in a 401's WWW-Authenticate (mcp-server/protected-resource.ts).
 */
export type EngineAccess =
  | { kind: 'public' }
  | { kind: 'webhook'; body?: 'raw' | 'raw-any' }
  | { kind: 'bearer'; body?: 'json'; challenge?: 'mcp' };

export type EngineRouteSpec = RouteSpec<EngineAccess>;

/** The bearer token the manager mints for an agent, or one the agent's OIDC issuer signs. */
export const BEARER_SCHEME = 'bearerToken';

export const describeEngineAccess: SpecRouterOptions<EngineAccess>['describeAccess'] = (access) => ({
  authenticated: access.kind === 'bearer',
  workspaceScoped: false,
});

// Providers' deliveries are at most a few hundred kilobytes; the signature covers the bytes as sent.
const WEBHOOK_BODY_LIMIT = '1mb';

export type EngineApi = SpecRouter<EngineAccess>;

export function createEngineApi(
  source: SnapshotSource,
  options: {
    /** The largest run input accepted, in bytes: a larger body is a 413 (ENGINE_RUN_INPUT_MAX_BYTES). */
    inputMaxBytes: number;
    /** ENGINE_PUBLIC_URL's origin, for the URLs a response names; undefined: the request's own. */
    publicOrigin: string | undefined;
  },
): EngineApi {
  // What the run input's schema cannot see (NUL, lone surrogates, `__proto__`, nesting that would
  // exhaust the stack) is refused as soon as the body is read.
  const readJson = [
    express.json({ limit: options.inputMaxBytes }),
    refuseUnstorableInput({ maxBodyDepth: JSON_MAX_DEPTH }),
  ];
  const readRaw = express.raw({ type: 'application/json', limit: WEBHOOK_BODY_LIMIT });
  const readRawAny = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
  const rawReaders = { raw: [readRaw], 'raw-any': [readRawAny] };
  // The agent's base path is where this router is mounted: '' on a dedicated engine, /agents/{id} on a pool.
  const requireBearerForMcp = requireBearerNaming((req) =>
    resourceMetadataUrl(publicOrigin(req, options.publicOrigin), req.baseUrl),
  );
  const middleware = ({ access }: EngineRouteSpec): RequestHandler[] => {
    if (access.kind === 'public') return [];
    if (access.kind === 'webhook') return [useSnapshot(source), ...(access.body ? rawReaders[access.body] : [])];
    const authenticate = access.challenge === 'mcp' ? requireBearerForMcp : requireBearer;
    return [useSnapshot(source), authenticate, ...(access.body === 'json' ? readJson : [])];
  };
  return new SpecRouter<EngineAccess>({ middleware, describeAccess: describeEngineAccess });
}
