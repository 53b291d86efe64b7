import { Prisma } from './generated/prisma/client.js';

// Prisma's error codes for the constraint violations the services turn into 409s and 422s.
const FOREIGN_KEY_VIOLATION = 'P2003';
const UNIQUE_VIOLATION = 'P2002';

function hasPrismaCode(error: unknown, code: string): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === code;
}

export function isForeignKeyViolation(error: unknown): boolean {
  return hasPrismaCode(error, FOREIGN_KEY_VIOLATION);
}

export function isUniqueViolation(error: unknown): boolean {
  return hasPrismaCode(error, UNIQUE_VIOLATION);
}

// Deadlocks (40P01) and serialization failures (40001) abort one of two racing transactions; running
// it again is the documented remedy. Prisma reports them as P2034, or inside a raw query's error.
const RETRYABLE_SQLSTATES = ['40P01', '40001'];

export function isRetryableTransactionError(error: unknown): boolean {
  if (hasPrismaCode(error, 'P2034')) return true;
  const text =
    error instanceof Error ? `${error.message} ${JSON.stringify((error as { meta?: unknown }).meta ?? {})}` : '';
  return RETRYABLE_SQLSTATES.some((code) => text.includes(code)) || /deadlock detected|could not serialize/i.test(text);
}
