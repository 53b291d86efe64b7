import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatZodIssues } from '../common/format-zod-issues.js';
import { IDENTIFIER_MAX_LENGTH, SECRET_MAX_LENGTH } from '../common/limits.js';
import { WHATSAPP_SECRET_FIELDS, ZWhatsAppConfig } from './whatsapp-config.js';

const minimal = { accessToken: 'EAAG-token', phoneNumberId: '1234567890', verifyToken: 'verify-me' };

function rejectedPaths(input: unknown): string[] {
  const result = ZWhatsAppConfig.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe('ZWhatsAppConfig', () => {
  it('defaults apiVersion to v21.0 and adds nothing else', () => {
    expect(ZWhatsAppConfig.parse(minimal)).toStrictEqual({ ...minimal, apiVersion: 'v21.0' });
  });

  it('keeps a given apiVersion and appSecret', () => {
    const full = { ...minimal, apiVersion: 'v19.0', appSecret: 'app-secret' };
    expect(ZWhatsAppConfig.parse(full)).toStrictEqual(full);
  });

  it.each(['accessToken', 'phoneNumberId', 'verifyToken'] as const)('requires %s', (field) => {
    const { [field]: _omitted, ...rest } = minimal;
    expect(rejectedPaths(rest)).toEqual([field]);
  });

  it.each(['accessToken', 'phoneNumberId', 'verifyToken', 'appSecret'])('rejects an empty %s', (field) => {
    expect(rejectedPaths({ ...minimal, [field]: '' })).toEqual([field]);
  });

  it.each(['accessToken', 'phoneNumberId', 'verifyToken', 'appSecret'])('rejects an all-whitespace %s', (field) => {
    expect(rejectedPaths({ ...minimal, [field]: '  \t ' })).toEqual([field]);
  });

  it('does not trim secrets', () => {
    const parsed = ZWhatsAppConfig.parse({ ...minimal, accessToken: ' tok ', verifyToken: 'v ', appSecret: ' s' });
    expect([parsed.accessToken, parsed.verifyToken, parsed.appSecret]).toEqual([' tok ', 'v ', ' s']);
  });

  it('trims phoneNumberId, which ends up in a URL path', () => {
    expect(ZWhatsAppConfig.parse({ ...minimal, phoneNumberId: ' 123 ' }).phoneNumberId).toBe('123');
  });

  it.each(['21.0', 'v21', 'V21.0', 'v21.0.1', 'v.0', 'v21.', ' v21.0', ''])('rejects apiVersion %j', (apiVersion) => {
    expect(rejectedPaths({ ...minimal, apiVersion })).toEqual(['apiVersion']);
  });

  it('rejects a non-string secret', () => {
    expect(rejectedPaths({ ...minimal, accessToken: 123 })).toEqual(['accessToken']);
  });

  it('takes the unsafe allowUnsignedDeliveries opt-out as a boolean only, absent meaning false', () => {
    expect(ZWhatsAppConfig.parse({ ...minimal, allowUnsignedDeliveries: true }).allowUnsignedDeliveries).toBe(true);
    expect(ZWhatsAppConfig.parse(minimal)).not.toHaveProperty('allowUnsignedDeliveries');
    expect(rejectedPaths({ ...minimal, allowUnsignedDeliveries: 'true' })).toEqual(['allowUnsignedDeliveries']);
  });

  it('caps each field', () => {
    const long = 'x'.repeat(SECRET_MAX_LENGTH + 1);
    expect(rejectedPaths({ ...minimal, accessToken: long, verifyToken: long, appSecret: long }).sort()).toEqual([
      'accessToken',
      'appSecret',
      'verifyToken',
    ]);
    expect(rejectedPaths({ ...minimal, phoneNumberId: '1'.repeat(IDENTIFIER_MAX_LENGTH + 1) })).toEqual([
      'phoneNumberId',
    ]);
  });

  it('rejects unknown fields by name', () => {
    expect(rejectedPaths({ ...minimal, access_token: 'x' })).toEqual(['access_token']);
  });

  it('is registered for OpenAPI as "WhatsAppConfig"', () => {
    expect(z.globalRegistry.get(ZWhatsAppConfig)?.id).toBe('WhatsAppConfig');
  });
});

describe('WHATSAPP_SECRET_FIELDS', () => {
  it('lists exactly the secret fields, each of which is a config field', () => {
    expect(WHATSAPP_SECRET_FIELDS).toEqual(['accessToken', 'verifyToken', 'appSecret']);
    for (const field of WHATSAPP_SECRET_FIELDS) {
      expect(Object.keys(ZWhatsAppConfig.shape)).toContain(field);
    }
  });
});
