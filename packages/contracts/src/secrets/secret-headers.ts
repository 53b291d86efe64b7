// Header maps a tenant configures for the engine to send (MCP servers, trace exporters): each name an
// HTTP field name, a token (RFC 9110), and each value a secret that may not break the header line.
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { SECRET_FIELD_RULE } from './secret-mask.js';
import { makeSecretString } from './secret-string.js';

const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A secret that fits on one header line. */
export const ZHeaderSecret = makeSecretString(z.string()).regex(/^[^\r\n\0]*$/, 'Must not contain a line break or NUL');

/** At most `maxEntries` headers, none by default; `purpose` opens the field's description. */
export function makeSecretHeaders(maxEntries: number, purpose: string) {
  return z
    .record(z.string().max(IDENTIFIER_MAX_LENGTH).regex(HTTP_TOKEN, 'Must be an HTTP header name'), ZHeaderSecret)
    .refine((map) => Object.keys(map).length <= maxEntries, { message: `Must have at most ${maxEntries} entries` })
    .default(() => ({}))
    .meta({ maxProperties: maxEntries, description: `${purpose} Each value: ${SECRET_FIELD_RULE}` });
}
