// The manager's OpenAPI document: its routes, its session cookie, and the gates every request passes
// before its route does.
import {
  createOpenApiDocument,
  JSON_BODY_MAX_BYTES,
  JSON_MAX_DEPTH,
  type OpenApiDocument,
  type OpenApiRoute,
} from '@agentplane/contracts';

const SESSION_COOKIE_SCHEME = 'sessionCookie';

const UNSTORABLE =
  `a NUL character, a lone UTF-16 surrogate or a "__proto__" key anywhere, or nesting deeper than ${JSON_MAX_DEPTH}; ` +
  '`errors` names the path';

// Whatever the operation, a body that is sent must be JSON (415), well-formed (400), within the byte
// limit (413) and storable (422).
function gateProblems(route: OpenApiRoute): Record<number, string> {
  const malformed = [
    'Malformed JSON body, or a NUL in the query string',
    ...(route.params ? ['a path id that is not a UUID or not percent-encoded UTF-8'] : []),
    ...(route.query ? ['a bad query parameter'] : []),
    ...(route.workspaceScoped ? ['an x-workspace-id that is not a UUID'] : []),
  ];
  const problems: Record<number, string> = {
    400: malformed.join('; '),
    413: `Body larger than ${JSON_BODY_MAX_BYTES / 1024 / 1024} MiB`,
    415: 'A body that is not application/json',
    422: route.body
      ? `Body failed validation (\`errors\` names each field), or holds ${UNSTORABLE}`
      : `A body was sent (this operation reads none) that holds ${UNSTORABLE}`,
  };
  if (route.workspaceScoped) problems[403] = 'Not a member of the workspace, or the role is too low';
  return problems;
}

export function createManagerOpenApi(
  routes: OpenApiRoute[],
  options: { sessionCookie?: string } = {},
): OpenApiDocument {
  return createOpenApiDocument(routes, {
    info: { title: 'Agentplane Manager API', version: '1.0.0', description: 'The Agentplane control plane.' },
    security: {
      name: SESSION_COOKIE_SCHEME,
      scheme: {
        type: 'apiKey',
        in: 'cookie',
        name: options.sessionCookie ?? 'sid',
        description:
          'The signed session cookie set by /api/v1/auth/signup and /api/v1/auth/login: `__Host-sid` when the ' +
          'manager marks its cookie Secure (HTTPS: in production, or with COOKIE_SECURE=true), `sid` otherwise.',
      },
      unauthorized: 'No valid session',
    },
    gateProblems,
  });
}
