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

  it.each(['MESSAGING_APP', 'whatsapp', 'SIGNAL', undefined])(
    'rejects provider %j at provider, naming the accepted ones',
    (provider) => {
      expect(rejected({ provider, config })).toEqual([
        {
          path: 'provider',
          message: 'provider must be one of: WHATSAPP, SLACK, TELEGRAM, DISCORD, TEAMS, GOOGLE_CHAT',
        },
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

  it.each([
    ['SLACK', { botToken: 'xoxb-1', signingSecret: 'signing', appId: 'A0123456789' }],
    ['TELEGRAM', { botToken: '123:abc', secretToken: 'a-secret-token-of-32-characters_' }],
    ['DISCORD', { applicationId: '123456789012345678', publicKey: 'ab'.repeat(32), botToken: 'bot' }],
    ['TEAMS', { appId: '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a', appPassword: 'password' }],
    [
      'GOOGLE_CHAT',
      {
        audience: '123456789012',
        serviceAccountEmail: 'bot@project.iam.gserviceaccount.com',
        serviceAccountPrivateKey: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
      },
    ],
  ])('takes a minimal %s integration', (provider, providerConfig) => {
    expect(ZIntegrationConfig.parse({ provider, config: providerConfig })).toStrictEqual({
      provider,
      enabled: true,
      config: providerConfig,
    });
  });

  it.each([
    ['SLACK', { botToken: 'xoxb-1', signingSecret: 'signing', appId: 'not-an-app' }, 'config.appId'],
    ['TELEGRAM', { botToken: '123:abc', secretToken: 'short' }, 'config.secretToken'],
    ['DISCORD', { applicationId: '1234', publicKey: 'ab'.repeat(32), botToken: 'bot' }, 'config.applicationId'],
    ['TEAMS', { appId: 'bot', appPassword: 'password' }, 'config.appId'],
    [
      'GOOGLE_CHAT',
      { audience: '1', serviceAccountEmail: 'bot@example.com', serviceAccountPrivateKey: 'not a key' },
      'config.serviceAccountPrivateKey',
    ],
  ])('refuses a malformed %s config at its field', (provider, providerConfig, path) => {
    expect(rejected({ provider, config: providerConfig }).map((e) => e.path)).toEqual([path]);
  });

  it('is registered for OpenAPI as "IntegrationConfig"', () => {
    expect(z.globalRegistry.get(ZIntegrationConfig)?.id).toBe('IntegrationConfig');
  });
});
