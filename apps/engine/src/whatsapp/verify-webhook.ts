// The two proofs Meta gives: the verify token of the subscription handshake, and the HMAC-SHA256 of
// each delivery's raw body under the app secret. Both are compared in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time string equality: hashing first makes the lengths equal, so the length leaks nothing either. */
export function equalsSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** True when `header` is `sha256=<hex HMAC-SHA256 of body under secret>`. */
export function hasValidSignature(body: Buffer, header: string | undefined, secret: string): boolean {
  const match = SIGNATURE.exec(header?.trim() ?? '');
  if (match === null) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(String(match[1]).toLowerCase(), 'hex'), expected);
}

export function signBody(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
