// A SCRAM-SHA-256 verifier (RFC 5802/7677, PostgreSQL's stored format) computed here, so that the
// plaintext of an engine's password never reaches the server, nor its statement log.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

const ITERATIONS = 4096;

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** The password must be ASCII: SASLprep leaves it unchanged, so no normalisation is needed. */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16)): string {
  const salted = pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256');
  const storedKey = createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  const b64 = (buffer: Buffer) => buffer.toString('base64');
  return `SCRAM-SHA-256$${ITERATIONS}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`;
}
