import { hash, verify } from '@node-rs/argon2';

// argon2id with the library's defaults (19 MiB, 2 passes, 1 lane): OWASP's recommended minimum.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verifying against this when the email is unknown makes that answer take as long as a wrong password.
const DUMMY_HASH_PROMISE = hash('agentplane-timing-equaliser');

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  const target = passwordHash ?? (await DUMMY_HASH_PROMISE);
  const matches = await verify(target, password).catch(() => false);
  return passwordHash !== undefined && matches;
}
