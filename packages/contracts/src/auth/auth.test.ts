import { describe, expect, it } from '@jest/globals';
import { ZLoginBody, ZPasswordChangeBody, ZSignupBody } from './auth.js';

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

describe('ZPasswordChangeBody', () => {
  it('holds the new password to the sign-up rules and takes the current one as it is', () => {
    const body = (current_password: string, new_password: string) =>
      ZPasswordChangeBody.safeParse({ current_password, new_password }).success;
    expect(body('x', 'long enough')).toBe(true);
    expect(body('x', 'x'.repeat(7))).toBe(false);
    expect(body('x', 'x'.repeat(257))).toBe(false);
    expect(body('', 'long enough')).toBe(false);
    expect(ZPasswordChangeBody.safeParse({ current_password: 'x', new_password: 'long enough', a: 1 }).success).toBe(
      false,
    );
  });
});
