// URLs a tenant's engine connects to (an MCP server, a model's baseUrl, a trace endpoint) often carry an
// API key in their query (`?api_key=`). So the query is a secret like any secret field: sealed at rest,
// masked for viewers and redacted by engines, while the origin and path stay readable. A user name or
// password in a URL is refused instead: a masked host would tell a viewer nothing.
import type { z } from 'zod';
import { URL_MAX_LENGTH } from '../common/limits.js';
import { hasUserinfo, makeUrlText, NO_USERINFO_RULE } from '../common/primitives.js';
import type { SecretTransform } from './secret-fields.js';
import { SEALED_SECRET_PREFIX, sealedSecretLengthMax } from './secret-string.js';

export const SECRET_QUERY_RULE =
  'A user name or password in it is refused. Its query (from ? on) is a secret: sealed at rest, masked for viewers ' +
  '(the rest of the URL stays readable), redacted on the engine’s /agent/config; sending the masked URL back keeps the stored query.';

/** Where the secret part begins: the query, or a fragment when there is no query. */
function secretStartOf(url: string): number {
  return url.search(/[?#]/);
}

/** `url` with its query (and what follows) mapped by `transform` as the secret at `path`. */
export function mapUrlQuerySecret(url: string, path: readonly string[], transform: SecretTransform): string {
  const start = secretStartOf(url);
  if (start === -1 || start === url.length - 1) return url;
  return url.slice(0, start + 1) + transform(url.slice(start + 1), path);
}

function hasSealedQuery(url: string): boolean {
  const start = secretStartOf(url);
  return start !== -1 && url.startsWith(SEALED_SECRET_PREFIX, start + 1);
}

/** A URL whose query is a secret; as with secret strings, the length cap is the plaintext's, or its sealed form's. */
export function makeSecretQueryUrl<S extends z.ZodString | z.ZodURL>(base: S) {
  return makeUrlText(base, URL_MAX_LENGTH + sealedSecretLengthMax(URL_MAX_LENGTH))
    .refine((url) => url.length <= URL_MAX_LENGTH || hasSealedQuery(url), {
      message: `Too big: expected string to have <=${URL_MAX_LENGTH} characters`,
    })
    .refine((url) => !hasUserinfo(url), NO_USERINFO_RULE)
    .meta({ maxLength: URL_MAX_LENGTH });
}
