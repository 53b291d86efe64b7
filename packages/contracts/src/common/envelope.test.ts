import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from './envelope.js';
import { formatZodIssues } from './format-zod-issues.js';

const ZThing = z.strictObject({ size: z.number().default(1) });
const ZThingBody = makeResourceBody('thing', ZThing);
const ZThingResponse = makeResourceResponse('thing', ZThing);

const validResponse = {
  id: '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a',
  name: 'a thing',
  thing: { size: 2 },
  created_at: '2025-01-02T03:04:05.678Z',
  updated_at: '2025-01-02T03:04:05.678Z',
  agent_count: 0,
};

function rejectedPaths(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe('makeResourceBody', () => {
  it('builds {name, [key]} and applies the typed schema', () => {
    expect(ZThingBody.parse({ name: ' a thing ', thing: {} })).toStrictEqual({ name: 'a thing', thing: { size: 1 } });
  });

  it('requires both name and the typed object', () => {
    expect(rejectedPaths(ZThingBody, {}).sort()).toEqual(['name', 'thing']);
  });

  it('rejects unknown top-level fields, including envelope fields', () => {
    expect(rejectedPaths(ZThingBody, { name: 'x', thing: {}, id: 'abc', agent_count: 3 }).sort()).toEqual([
      'agent_count',
      'id',
    ]);
  });

  it('refuses a key that would clash with an envelope field', () => {
    expect(() => makeResourceBody('name', ZThing)).toThrow(/clashes/);
    expect(() => makeResourceResponse('agent_count', ZThing)).toThrow(/clashes/);
  });
});

describe('makeResourceResponse', () => {
  it('accepts a complete resource', () => {
    expect(ZThingResponse.parse(validResponse)).toStrictEqual(validResponse);
  });

  it('requires every envelope field', () => {
    expect(rejectedPaths(ZThingResponse, {}).sort()).toEqual([
      'agent_count',
      'created_at',
      'id',
      'name',
      'thing',
      'updated_at',
    ]);
  });

  it('requires id to be a UUID', () => {
    expect(rejectedPaths(ZThingResponse, { ...validResponse, id: '42' })).toEqual(['id']);
  });

  it.each(['2025-01-02', 'yesterday', '2025-01-02 03:04:05', ''])('rejects created_at %j', (createdAt) => {
    expect(rejectedPaths(ZThingResponse, { ...validResponse, created_at: createdAt })).toEqual(['created_at']);
  });

  it('rejects an updated_at that is not an ISO date-time', () => {
    expect(rejectedPaths(ZThingResponse, { ...validResponse, updated_at: 1735787045678 })).toEqual(['updated_at']);
  });

  it.each([-1, 1.5, '3', Number.NaN])('rejects agent_count %j', (agentCount) => {
    expect(rejectedPaths(ZThingResponse, { ...validResponse, agent_count: agentCount })).toEqual(['agent_count']);
  });

  it('rejects fields outside the envelope, so leaked columns are noticed', () => {
    expect(rejectedPaths(ZThingResponse, { ...validResponse, workspace_id: validResponse.id })).toEqual([
      'workspace_id',
    ]);
  });
});
