import { describe, expect, it } from '@jest/globals';
import { ZLoginBody, ZSignupBody } from './auth.js';

describe('ZSignupBody', () => {
  it('normalises the email', () => {
    expect(ZSignupBody.parse({ email: '  Ada@Example.COM ', password: 'correct horse' }).email).toBe('ada@example.com');
  });

  it('bounds the password to 8..256 characters', () => {
    expect(ZSignupBody.safeParse({ email: 'a@b.co', password: 'x'.repeat(7) }).success).toBe(false);
    expect(ZSignupBody.safeParse({ email: 'a@b.co', password: 'x'.repeat(8) }).success).toBe(true);
    expect(ZSignupBody.safeParse({ email: 'a@b.co', password: 'x'.repeat(256) }).success).toBe(true);
    expect(ZSignupBody.safeParse({ email: 'a@b.co', password: 'x'.repeat(257) }).success).toBe(false);
  });

  it('rejects a bad email and unknown fields', () => {
    expect(ZSignupBody.safeParse({ email: 'nope', password: 'long enough' }).success).toBe(false);
    expect(ZSignupBody.safeParse({ email: 'a@b.co', password: 'long enough', admin: true }).success).toBe(false);
  });
});

describe('ZLoginBody', () => {
  it('accepts any non-empty password so that a short one is a 401, not a 422', () => {
    expect(ZLoginBody.safeParse({ email: 'a@b.co', password: 'x' }).success).toBe(true);
    expect(ZLoginBody.safeParse({ email: 'a@b.co', password: '' }).success).toBe(false);
  });
});
