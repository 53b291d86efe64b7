// The managed resources (integrations, MCP servers, SSO, observability) share one envelope and differ only in
// the key and schema of their typed configuration object, so both body and response are built here.
import { z } from 'zod';
import { ZIsoDateTime, ZResourceName, ZUuid } from './primitives.js';

const ENVELOPE_KEYS = ['id', 'name', 'created_at', 'updated_at', 'agent_count'] as const;

type KeyedShape<K extends string, S extends z.ZodType> = { [P in K]: S };

function makeKeyedShape<K extends string, S extends z.ZodType>(key: K, typed: S): KeyedShape<K, S> {
  if ((ENVELOPE_KEYS as readonly string[]).includes(key)) {
    throw new Error(`Resource key "${key}" clashes with an envelope field`);
  }
  return { [key]: typed } as KeyedShape<K, S>;
}

/** Create and update (PATCH is a full replacement) body: `{name, [key]: typed}`, unknown keys rejected. */
export function makeResourceBody<K extends string, S extends z.ZodType>(key: K, typed: S) {
  return z.strictObject({ name: ZResourceName, ...makeKeyedShape(key, typed) });
}

/** Response: the stored resource with its id, timestamps and live agent_count. */
export function makeResourceResponse<K extends string, S extends z.ZodType>(key: K, typed: S) {
  // Strict so that a test parsing a response notices a leaked internal column (workspace_id, ciphertext).
  return z.strictObject({
    id: ZUuid,
    name: ZResourceName,
    ...makeKeyedShape(key, typed),
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
    agent_count: z.number().int().min(0),
  });
}
