import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createSecretBox, isSealed, SecretKeyError } from './secret-box.js';

const newKey = () => randomBytes(32).toString('base64');

describe('secret box', () => {
  it('seals to a value that hides the plaintext and opens back to it', () => {
    const box = createSecretBox(newKey());
    const sealed = box.seal('EAAG-access-token');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('EAAG');
    expect(sealed.startsWith(`enc:v1:${box.keyId}:`)).toBe(true);
    expect(box.open(sealed)).toBe('EAAG-access-token');
  });

  it('uses a fresh IV each time', () => {
    const box = createSecretBox(newKey());
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('opens values sealed with a previous key after rotation, and seals with the new one', () => {
    const oldKey = newKey();
    const sealedBefore = createSecretBox(oldKey).seal('token');
    const rotated = createSecretBox(newKey(), [oldKey]);
    expect(rotated.open(sealedBefore)).toBe('token');
    expect(rotated.seal('token').split(':')[2]).toBe(rotated.keyId);
  });

  it('refuses a value sealed with an unknown key, or tampered with', () => {
    const sealed = createSecretBox(newKey()).seal('token');
    expect(() => createSecretBox(newKey()).open(sealed)).toThrow(SecretKeyError);
    const box = createSecretBox(newKey());
    const good = box.seal('token');
    // One bit of the ciphertext flipped. Swapping base64 characters instead could leave the decoded
    // bytes unchanged (the last character carries unused bits), and so passed now and then.
    const cut = good.lastIndexOf(':') + 1;
    const ciphertext = Buffer.from(good.slice(cut), 'base64url');
    ciphertext.writeUInt8((ciphertext.readUInt8(0) ^ 1) & 0xff, 0);
    const tampered = `${good.slice(0, cut)}${ciphertext.toString('base64url')}`;
    expect(() => box.open(tampered)).toThrow(/unable to authenticate data/);
  });

  it('passes plaintext through open, for configs written by hand', () => {
    expect(createSecretBox(newKey()).open('plain')).toBe('plain');
  });

  it('accepts hex keys and refuses keys of the wrong size', () => {
    expect(() => createSecretBox(randomBytes(32).toString('hex'))).not.toThrow();
    expect(() => createSecretBox('too-short')).toThrow(SecretKeyError);
    expect(() => createSecretBox(randomBytes(16).toString('base64'))).toThrow(SecretKeyError);
  });
});
