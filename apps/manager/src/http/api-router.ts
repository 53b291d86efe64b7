// The manager's routes under /api/v1, each declared once (server-kit's SpecRouter): its access check,
// its input validation and its OpenAPI entry.
import type { TRole } from '@agentplane/contracts';
import { SpecRouter } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';

/**
 * public: anyone. session: a signed-in user. workspace: a member of the x-workspace-id workspace with
 * at least `minRole`. workspace-path: the same for the workspace named by the `:id` path parameter.
 * platform-operator: a signed-in user the operator's CLI made a platform operator, whatever workspaces
 * they are in.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'session' }
  | { kind: 'workspace'; minRole: TRole }
  | { kind: 'workspace-path'; minRole: TRole }
  | { kind: 'platform-operator' };

/** The middleware that turns an Access into checks; the auth and workspace features provide it. */
export type AccessMiddleware = (access: Access) => RequestHandler[];

export const API_PREFIX = '/api/v1';

export class ApiRouter extends SpecRouter<Access> {
  constructor(accessMiddleware: AccessMiddleware) {
    super({
      middleware: (spec) => accessMiddleware(spec.access),
      describeAccess: (access) => ({
        authenticated: access.kind !== 'public',
        workspaceScoped: access.kind === 'workspace',
      }),
      pathPrefix: API_PREFIX,
    });
  }
}
