// Field-level schemas shared by several contracts.
import { z } from 'zod';
import { NAME_MAX_LENGTH, URL_MAX_LENGTH } from './limits.js';

// Lower-cased, so that an id sent in upper case names the same row on every verb: ids are compared
// as strings after the database answers (the rows come back lower-case).
export const ZUuid = z.uuid().toLowerCase();
export type TUuid = z.infer<typeof ZUuid>;

export const RESOURCE_NAME_MAX_LENGTH = NAME_MAX_LENGTH;

// Names are shown in lists and UIs, where surrounding whitespace is never meaningful, so it is dropped.
export const ZResourceName = z.string().trim().min(1).max(RESOURCE_NAME_MAX_LENGTH);
export type TResourceName = z.infer<typeof ZResourceName>;

// For secrets and identifiers that are stored byte for byte: trimming a token would silently
// change it, so the value is kept as sent and only a blank one is refused.
export const ZNonBlankString = z.string().regex(/\S/, { error: 'Must not be empty or blank' });

// Control characters, format characters (bidirectional overrides and isolates, zero-width ones), lone
// surrogates and spaces. WHATWG URL parsing percent-encodes most of them instead of failing, so a URL
// that displays as one address could name another.
const INVISIBLE_IN_URL = /[\p{Cc}\p{Cf}\p{Cs}\p{Z}]/u;

/** A URL a tenant configures (`base` checks its form): bounded, and nothing in it that displays differently than it reads. */
export function makeUrlText<S extends z.ZodString | z.ZodURL>(base: S, maxLength = URL_MAX_LENGTH) {
  return base.max(maxLength).refine((url) => !INVISIBLE_IN_URL.test(url), {
    message: 'Must not contain control, format (such as bidirectional override) or space characters',
    abort: true,
  });
}

/** Whether a URL names a user or a password (`https://user:pass@host`). */
export function hasUserinfo(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username !== '' || password !== '';
}

// Credentials in a URL would be shown wherever the URL is: in lists, to viewers, in logs. A string, not
// `{ message }`: zod's refine rewrites a params object it is given, so a shared one would change under us.
export const NO_USERINFO_RULE =
  'Must not contain a user name or password: put credentials in a secret field (headers, apiKey)';

/**
 * An origin and an optional path, to which paths are appended (an engine, a Langfuse host): no
 * credentials, and no query or fragment, which would swallow the appended path.
 */
export function makeBaseUrl<S extends z.ZodString | z.ZodURL>(base: S) {
  return makeUrlText(base)
    .refine((url) => !hasUserinfo(url), NO_USERINFO_RULE)
    .refine((url) => !/[?#]/.test(url), 'Must be an origin and an optional path, without a query (?) or fragment (#)');
}

export const ZUrlText = makeUrlText(z.string());

// Timestamps leave the API as Date#toISOString() output; an explicit offset is accepted too.
export const ZIsoDateTime = z.iso.datetime({ offset: true });

/** How every URL an engine connects to on a tenant's behalf is limited, for the OpenAPI descriptions. */
export const EGRESS_RULE =
  'Public addresses only: loopback, private, CGNAT, link-local (cloud metadata), unique-local, multicast and ' +
  'reserved addresses, IPv4-mapped forms included, are refused unless the operator allows them: a literal one ' +
  'here with a 422, one a host name resolves to (or a redirect leads to) by the engine when it connects.';
