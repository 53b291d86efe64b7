import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatZodIssues } from '../common/format-zod-issues.js';
import { ZIntegrationConfig } from './integration-config.js';

const config = { accessToken: 'EAAG-token', phoneNumberId: '1234567890', verifyToken: 'verify-me' };

function rejected(input: unknown) {
  const result = ZIntegrationConfig.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error);
}

describe('ZIntegrationConfig', () => {
  it('applies enabled=true and the config defaults to a minimal WHATSAPP integration', () => {
    expect(ZIntegrationConfig.parse({ provider: 'WHATSAPP', config })).toStrictEqual({
      provider: 'WHATSAPP',
      enabled: true,
      config: { ...config, apiVersion: 'v21.0' },
    });
  });

  it('keeps enabled=false', () => {
    expect(ZIntegrationConfig.parse({ provider: 'WHATSAPP', enabled: false, config }).enabled).toBe(false);
  });

  it.each(['MESSAGING_APP', 'whatsapp', 'TELEGRAM', undefined])(
    'rejects provider %j at provider, naming the accepted ones',
    (provider) => {
      expect(rejected({ provider, config })).toEqual([
        { path: 'provider', message: 'provider must be one of: WHATSAPP' },
      ]);
    },
  );

  it('rejects a non-boolean enabled', () => {
    expect(rejected({ provider: 'WHATSAPP', enabled: 'yes', config }).map((e) => e.path)).toEqual(['enabled']);
  });

  it('requires config', () => {
    expect(rejected({ provider: 'WHATSAPP' }).map((e) => e.path)).toEqual(['config']);
  });

  it('reports a nested config problem at its field', () => {
    expect(rejected({ provider: 'WHATSAPP', config: { ...config, apiVersion: '21.0' } }).map((e) => e.path)).toEqual([
      'config.apiVersion',
    ]);
  });

  it('rejects unknown fields at both levels', () => {
    const errors = rejected({ provider: 'WHATSAPP', config: { ...config, extra: 1 }, region: 'eu' });
    expect(errors.map((e) => e.path).sort()).toEqual(['config.extra', 'region']);
  });

  it('is registered for OpenAPI as "IntegrationConfig"', () => {
    expect(z.globalRegistry.get(ZIntegrationConfig)?.id).toBe('IntegrationConfig');
  });
});
