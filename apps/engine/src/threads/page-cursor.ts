// Keyset pagination for newest-first lists: the cursor names the last row of a page by its sort key
// (a timestamp and an id). It is opaque to clients (base64url), and a cursor that does not decode to
// exactly that is the client's mistake, so a 400, never a query on garbage.
import { ZAguiId } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';

export type PageCursor = { at: Date; id: string };

const MAX_CURSOR_LENGTH = 2048;
// Rows are stamped by now(): anything outside these years never came from a page, and PostgreSQL's
// timestamptz cannot even hold a date before 4713 BC, which JavaScript's Date can.
const EARLIEST = Date.parse('1970-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

export function encodeCursor({ at, id }: PageCursor): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): PageCursor {
  const invalid = () => new AppError('bad_request', 'The cursor is not one this list returned.');
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
  const [iso, id] = parsed as unknown[];
  const at = typeof iso === 'string' ? new Date(iso) : new Date(Number.NaN);
  const time = at.getTime();
  if (Number.isNaN(time) || time < EARLIEST || time > LATEST) throw invalid();
  if (typeof id !== 'string' || !ZAguiId.safeParse(id).success) throw invalid();
  return { at, id };
}

/** A page of at most `limit` rows from `rows` (fetched with limit + 1), and the cursor after it if more follow. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => PageCursor): { items: T[]; next?: string } {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, next: encodeCursor(keyOf(items[items.length - 1] as T)) };
}
