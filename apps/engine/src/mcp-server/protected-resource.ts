// RFC 9728 protected resource metadata of an agent's MCP endpoint: which issuers' tokens it accepts, so
// an MCP client that was refused finds where to get one. A 401 from the endpoint points at it with
// `WWW-Authenticate: Bearer resource_metadata="…"`, and it is also served at the path-inserted
// well-known URL (RFC 9728 §3.1) a client builds from the resource URL itself:
// /.well-known/oauth-protected-resource/mcp on a dedicated engine, …/agents/{id}/mcp on a pool.
import type { Request, Response } from 'express';
import { publicOrigin } from '../http/public-origin.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';

export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** Where an agent's API is served: '' at a dedicated engine's root, `/agents/{id}` on a pool. */
export type AgentBase = string;

export const mcpUrl = (origin: string, base: AgentBase) => `${origin}${base}${MCP_PATH}`;

export const resourceMetadataUrl = (origin: string, base: AgentBase) =>
  `${origin}${PROTECTED_RESOURCE_PATH}${base}${MCP_PATH}`;

/** Answers the metadata document of the MCP endpoint at `base`, naming the issuers the agent accepts now. */
export function sendResourceMetadata(
  req: Request,
  res: Response,
  options: { source: SnapshotSource; base: AgentBase; publicOrigin: string | undefined },
): void {
  const snapshot = options.source.current();
  const origin = publicOrigin(req, options.publicOrigin);
  res.json({
    resource: mcpUrl(origin, options.base),
    authorization_servers: snapshot?.auth.issuers ?? [],
    bearer_methods_supported: ['header'],
    ...(snapshot === undefined ? {} : { resource_name: snapshot.config.agent.name }),
  });
}
