import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ZInvitationToken } from './invitation.js';

describe('ZInvitationToken', () => {
  it('accepts 32 random bytes in base64url and nothing else', () => {
    expect(ZInvitationToken.safeParse(randomBytes(32).toString('base64url')).success).toBe(true);
    for (const token of ['', 'short', 'x'.repeat(44), `${'x'.repeat(42)}=`, `${'x'.repeat(42)}/`]) {
      expect(ZInvitationToken.safeParse(token).success).toBe(false);
    }
  });
});
