import { describe, expect, it } from '@jest/globals';
import { SSO_ALLOWED_DOMAINS_MAX_ITEMS, SSO_ALLOWED_EMAILS_MAX_ITEMS } from '../common/limits.js';
import { NO_USERINFO_RULE } from '../common/primitives.js';
import { ZSsoConfig } from './sso-config.js';

const valid = { issuer: 'https://login.example.com/realms/acme', audience: 'agents' };

function pathsOf(input: unknown): string[] {
  const result = ZSsoConfig.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => issue.path.join('.'));
}

describe('ZSsoConfig', () => {
  it('applies the defaults', () => {
    expect(ZSsoConfig.parse(valid)).toEqual({ ...valid, enabled: true, algorithms: ['RS256', 'ES256'] });
  });

  it('accepts http only for a loopback issuer', () => {
    expect(pathsOf({ ...valid, issuer: 'http://localhost:9000' })).toEqual([]);
    expect(pathsOf({ ...valid, issuer: 'http://127.0.0.1:9000/oidc' })).toEqual([]);
    expect(pathsOf({ ...valid, issuer: 'http://login.example.com' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, issuer: 'not a url' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, jwksUri: 'http://keys.example.com/jwks' })).toEqual(['jwksUri']);
  });

  it('refuses a user name or password in the issuer or its JWKS URL', () => {
    expect(pathsOf({ ...valid, issuer: 'https://user:pass@login.example.com/realms/acme' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, issuer: 'http://user@localhost:9000' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, jwksUri: 'https://:secret@keys.example.com/jwks' })).toEqual(['jwksUri']);
    expect(ZSsoConfig.safeParse({ ...valid, jwksUri: 'https://u:p@keys.example.com/jwks' }).error?.issues).toEqual([
      expect.objectContaining({ message: NO_USERINFO_RULE }),
    ]);
  });

  it('refuses a query or a fragment in the issuer, which no token could name, but not in its JWKS URL', () => {
    expect(pathsOf({ ...valid, issuer: 'https://login.example.com/realms/acme?tenant=1' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, issuer: 'https://login.example.com/realms/acme#x' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, issuer: 'https://login.example.com/realms/acme?' })).toEqual(['issuer']);
    expect(pathsOf({ ...valid, jwksUri: 'https://keys.example.com/jwks?kid=1' })).toEqual([]);
  });

  it('refuses symmetric and unknown algorithms, and repeats', () => {
    expect(pathsOf({ ...valid, algorithms: ['HS256'] })).toEqual(['algorithms.0']);
    expect(pathsOf({ ...valid, algorithms: ['none'] })).toEqual(['algorithms.0']);
    expect(pathsOf({ ...valid, algorithms: [] })).toEqual(['algorithms']);
    expect(pathsOf({ ...valid, algorithms: ['RS256', 'RS256'] })).toEqual(['algorithms']);
  });

  it('requires an audience and checks emails and domains', () => {
    expect(pathsOf({ issuer: valid.issuer })).toEqual(['audience']);
    expect(pathsOf({ ...valid, allowedEmails: ['not-an-email'] })).toEqual(['allowedEmails.0']);
    expect(pathsOf({ ...valid, allowedDomains: ['example'] })).toEqual(['allowedDomains.0']);
    expect(ZSsoConfig.parse({ ...valid, allowedDomains: ['Example.COM'] }).allowedDomains).toEqual(['example.com']);
  });

  it('rejects unknown fields', () => {
    expect(pathsOf({ ...valid, clientSecret: 'x' })).toEqual(['']);
  });

  it('caps the allow-lists and refuses an issuer hiding a bidirectional override', () => {
    const domains = Array.from({ length: SSO_ALLOWED_DOMAINS_MAX_ITEMS + 1 }, (_, i) => `d${i}.example.com`);
    const emails = Array.from({ length: SSO_ALLOWED_EMAILS_MAX_ITEMS + 1 }, (_, i) => `u${i}@example.com`);
    expect(pathsOf({ ...valid, allowedDomains: domains, allowedEmails: emails }).sort()).toEqual([
      'allowedDomains',
      'allowedEmails',
    ]);
    expect(pathsOf({ ...valid, issuer: 'https://login.example.com/\u202Ecom' })).toEqual(['issuer']);
  });
});
