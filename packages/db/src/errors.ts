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
