import { readFileSync } from 'node:fs';
import type { DocumentedEnv } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { CONFIG_REFERENCE_FILE } from './config-reference-file.js';
import { envDocProblems, renderConfigReference } from './render-config-reference.js';
import { SERVICE_ENVS } from './service-envs.js';

describe('the configuration reference', () => {
  it("documents every variable of each service's environment schema, and no other", () => {
    expect(SERVICE_ENVS.map((env) => env.service)).toEqual(['manager', 'engine', 'launcher']);
    for (const env of SERVICE_ENVS.slice(0, 2)) expect(Object.keys(env.schema.shape).length).toBeGreaterThan(20);
    expect(SERVICE_ENVS.flatMap(envDocProblems)).toEqual([]);
  });

  it('is committed as the schemas render it (run `pnpm --filter @agentplane/docs config-reference` after a change)', () => {
    expect(readFileSync(CONFIG_REFERENCE_FILE, 'utf8')).toBe(renderConfigReference(SERVICE_ENVS));
  });

  it("gives each variable its schema's default, or the docs' words for a computed one", () => {
    const page = renderConfigReference(SERVICE_ENVS);
    expect(page).toMatch(/^\| `PORT` \| `8000` \|/m);
    expect(page).toMatch(/^\| `PORT` \| `8001` \|/m);
    expect(page).toMatch(/^\| `SECRETS_KEY` \| required/m);
    expect(page).toMatch(/^\| `ENGINE_DB_CONNECTIONS_TOTAL` \| half the server's `max_connections` \|/m);
    expect(page).toMatch(/^\| `CORS_ORIGINS` \| none \|/m);
  });
});

describe('envDocProblems', () => {
  const schema = z.object({
    DOCUMENTED: z.coerce.number().default(5),
    UNDOCUMENTED: z.string().optional(),
  });

  it('names a variable of the schema without a description, and one documented but gone', () => {
    const env: DocumentedEnv = {
      service: 'example',
      schema,
      docs: { DOCUMENTED: { description: 'Counts' }, UNDOCUMENTED: { description: ' ' }, GONE: { description: 'Old' } },
    };
    expect(envDocProblems(env)).toEqual([
      'example: UNDOCUMENTED is in the environment schema but has no description',
      'example: GONE is documented but not in the schema',
    ]);
    expect(envDocProblems({ ...env, docs: { DOCUMENTED: { description: 'Counts' } } })).toEqual([
      'example: UNDOCUMENTED is in the environment schema but has no description',
    ]);
  });

  it("names a documented default that does not quote the schema's", () => {
    const env: DocumentedEnv = {
      service: 'example',
      schema,
      docs: { DOCUMENTED: { description: 'Counts', default: '`6` (six)' }, UNDOCUMENTED: { description: 'Text' } },
    };
    expect(envDocProblems(env)).toEqual([
      `example: DOCUMENTED's documented default "\`6\` (six)" does not quote the schema's default 5`,
    ]);
  });
});
