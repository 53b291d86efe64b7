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
// it again is the documented remedy. The SQLSTATE is read where each layer keeps it: pg's error `code`,
// the driver adapter's `originalCode`, and Prisma's P2034 or the adapter error in a raw query's `meta`.
// Never the message: a message is text a user or a function may write, and it is translated.
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const TRANSACTION_WRITE_CONFLICT = 'P2034';
const MAX_CAUSE_DEPTH = 5;

export function isRetryableTransactionError(error: unknown): boolean {
  return (
    sqlStatesOf(error, MAX_CAUSE_DEPTH).some((code) => RETRYABLE_SQLSTATES.has(code)) ||
    hasPrismaCode(error, TRANSACTION_WRITE_CONFLICT)
  );
}

function sqlStatesOf(error: unknown, depth: number): string[] {
  if (depth === 0 || typeof error !== 'object' || error === null) return [];
  const { code, originalCode, cause, meta } = error as {
    code?: unknown;
    originalCode?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  const own = [code, originalCode].filter((value): value is string => typeof value === 'string');
  return [...own, ...sqlStatesOf(cause, depth - 1), ...sqlStatesOf(meta?.driverAdapterError, depth - 1)];
}
