import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatZodIssues } from '../common/format-zod-issues.js';
import type { TIntegration, TIntegrationCreate } from './integration.js';
import { ZIntegration, ZIntegrationCreate, ZIntegrationUpdate } from './integration.js';
import type { TIntegrationProvider } from './integration-config.js';

// True only when A and B are the same type, so an envelope that degraded to any/unknown fails typecheck.
type IsExact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const config = { accessToken: 'EAAG-token', phoneNumberId: '1234567890', verifyToken: 'verify-me' };
const minimalBody = { name: 'Support line', integration: { provider: 'WHATSAPP', config } };

function rejectedPaths(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe.each([
  ['ZIntegrationCreate', ZIntegrationCreate],
  ['ZIntegrationUpdate', ZIntegrationUpdate],
])('%s', (_label, schema) => {
  it('applies the defaults to a minimal body', () => {
    expect(schema.parse(minimalBody)).toStrictEqual({
      name: 'Support line',
      integration: { provider: 'WHATSAPP', enabled: true, config: { ...config, apiVersion: 'v21.0' } },
    });
  });

  it('requires name and integration', () => {
    expect(rejectedPaths(schema, {}).sort()).toEqual(['integration', 'name']);
  });

  it('rejects a blank name', () => {
    expect(rejectedPaths(schema, { ...minimalBody, name: '   ' })).toEqual(['name']);
  });

  it('rejects an unknown top-level field by its path', () => {
    expect(rejectedPaths(schema, { ...minimalBody, enabled: true })).toEqual(['enabled']);
  });

  it('rejects an unknown field inside config by its full path', () => {
    const body = { ...minimalBody, integration: { provider: 'WHATSAPP', config: { ...config, token: 'x' } } };
    expect(rejectedPaths(schema, body)).toEqual(['integration.config.token']);
  });

  it('points at a bad apiVersion through the whole path', () => {
    const body = { ...minimalBody, integration: { provider: 'WHATSAPP', config: { ...config, apiVersion: 'v21' } } };
    expect(rejectedPaths(schema, body)).toEqual(['integration.config.apiVersion']);
  });

  it('points at a wrong provider', () => {
    expect(rejectedPaths(schema, { ...minimalBody, integration: { provider: 'SMS', config } })).toEqual([
      'integration.provider',
    ]);
  });

  it.each(['accessToken', 'phoneNumberId', 'verifyToken'] as const)('requires integration.config.%s', (field) => {
    const { [field]: _omitted, ...rest } = config;
    const body = { ...minimalBody, integration: { provider: 'WHATSAPP', config: rest } };
    expect(rejectedPaths(schema, body)).toEqual([`integration.config.${field}`]);
  });
});

describe('inferred types', () => {
  it('keep the typed integration object under its key', () => {
    const providerIsTyped: IsExact<TIntegrationCreate['integration']['provider'], TIntegrationProvider> = true;
    const countIsNumber: IsExact<TIntegration['agent_count'], number> = true;
    expect([providerIsTyped, countIsNumber]).toEqual([true, true]);
  });
});

describe('ZIntegration', () => {
  const resource = {
    id: '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a',
    name: 'Support line',
    integration: { provider: 'WHATSAPP', enabled: true, config: { ...config, apiVersion: 'v21.0' } },
    created_at: '2025-01-02T03:04:05.678Z',
    updated_at: '2025-01-03T03:04:05.678Z',
    agent_count: 2,
  };

  it('accepts a complete resource, secrets included as strings', () => {
    expect(ZIntegration.parse(resource)).toStrictEqual(resource);
  });

  it('rejects a bad created_at and a negative agent_count', () => {
    expect(rejectedPaths(ZIntegration, { ...resource, created_at: 'now', agent_count: -1 }).sort()).toEqual([
      'agent_count',
      'created_at',
    ]);
  });

  it('carries the OpenAPI ids', () => {
    expect(z.globalRegistry.get(ZIntegration)?.id).toBe('Integration');
    expect(z.globalRegistry.get(ZIntegrationCreate)?.id).toBe('IntegrationCreate');
    expect(z.globalRegistry.get(ZIntegrationUpdate)?.id).toBe('IntegrationUpdate');
  });
});
