// Field-level schemas shared by several contracts.
import { z } from 'zod';

export const ZUuid = z.uuid();
export type TUuid = z.infer<typeof ZUuid>;

export const RESOURCE_NAME_MAX_LENGTH = 200;

// Names are shown in lists and UIs, where surrounding whitespace is never meaningful, so it is dropped.
export const ZResourceName = z.string().trim().min(1).max(RESOURCE_NAME_MAX_LENGTH);
export type TResourceName = z.infer<typeof ZResourceName>;

// For secrets and identifiers that are stored byte for byte: trimming a token would silently
// change it, so the value is kept as sent and only a blank one is refused.
export const ZNonBlankString = z.string().regex(/\S/, { error: 'Must not be empty or blank' });

// Timestamps leave the API as Date#toISOString() output; an explicit offset is accepted too.
export const ZIsoDateTime = z.iso.datetime({ offset: true });

/** How every URL an engine connects to on a tenant's behalf is limited, for the OpenAPI descriptions. */
export const EGRESS_RULE =
  'Public addresses only: loopback, private, CGNAT, link-local (cloud metadata), unique-local, multicast and ' +
  'reserved addresses, IPv4-mapped forms included, are refused unless the operator allows them: a literal one ' +
  'here with a 422, one a host name resolves to (or a redirect leads to) by the engine when it connects.';
