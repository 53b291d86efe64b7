import { describe, expect, it } from '@jest/globals';
import { isSecretMask, maskSecret, SECRET_MASK_BULLETS, ZSecretsQuery } from './secret-mask.js';

describe('maskSecret', () => {
  it('shows the last four characters of a secret of 16 or more', () => {
    expect(maskSecret('sk-0123456789abcdef-c3f1')).toBe('••••••••c3f1');
    expect(maskSecret('0123456789abcdef')).toBe('••••••••cdef');
  });

  it('shows bullets alone for a shorter secret, whatever its length', () => {
    expect(maskSecret('0123456789abcde')).toBe(SECRET_MASK_BULLETS);
    expect(maskSecret('x')).toBe(SECRET_MASK_BULLETS);
  });

  it('counts and cuts by code point, never splitting a surrogate pair', () => {
    const secret = `${'a'.repeat(12)}🔑🔑🔑🔑`;
    expect(maskSecret(secret)).toBe('••••••••🔑🔑🔑🔑');
    expect(maskSecret('🔑'.repeat(15))).toBe(SECRET_MASK_BULLETS);
  });
});

describe('isSecretMask', () => {
  it('recognises every mask maskSecret makes', () => {
    for (const secret of ['short', '0123456789abcdef', 'sk-0123456789abcdef-c3f1', `${'a'.repeat(20)}🔑🔑🔑🔑`]) {
      expect(isSecretMask(maskSecret(secret))).toBe(true);
    }
  });

  it('does not take a secret, or bullets of another count, for a mask', () => {
    for (const value of ['sk-real', '•••••••', '••••••••abc', '••••••••abcde', 'x••••••••abcd']) {
      expect(isSecretMask(value)).toBe(false);
    }
  });
});

describe('ZSecretsQuery', () => {
  it('accepts secrets=masked or nothing, and ignores other parameters', () => {
    expect(ZSecretsQuery.parse({ secrets: 'masked', other: '1' })).toEqual({ secrets: 'masked' });
    expect(ZSecretsQuery.parse({})).toEqual({});
  });

  it('refuses any other value', () => {
    expect(ZSecretsQuery.safeParse({ secrets: 'plain' }).success).toBe(false);
    expect(ZSecretsQuery.safeParse({ secrets: ['masked', 'masked'] }).success).toBe(false);
  });
});
