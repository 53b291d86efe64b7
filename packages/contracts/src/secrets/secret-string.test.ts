import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { makeSecretString, SEALED_SECRET_PREFIX, sealedSecretLengthMax } from './secret-string.js';

const ZSecret = makeSecretString(z.string(), 10);

describe('makeSecretString', () => {
  it('caps the plaintext', () => {
    expect(ZSecret.safeParse('x'.repeat(10)).success).toBe(true);
    expect(ZSecret.safeParse('x'.repeat(11)).error?.issues[0]?.message).toBe(
      'Too big: expected string to have <=10 characters',
    );
  });

  it('lets through the longer sealed form of a capped plaintext, and no longer', () => {
    const sealed = `${SEALED_SECRET_PREFIX}${'s'.repeat(sealedSecretLengthMax(10) - SEALED_SECRET_PREFIX.length)}`;
    expect(ZSecret.safeParse(sealed).success).toBe(true);
    expect(ZSecret.safeParse(`${sealed}s`).success).toBe(false);
  });

  it('documents the plaintext cap', () => {
    expect(z.toJSONSchema(ZSecret)).toMatchObject({ maxLength: 10 });
  });
});
