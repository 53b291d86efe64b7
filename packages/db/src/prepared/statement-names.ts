// Names each distinct SQL text Prisma sends, so that every pooled connection parses and plans a query
// once and then only binds and executes it. Unnamed statements are parsed and planned on every call,
// which costs Postgres several times the execution of a primary-key read.
import { createHash } from 'node:crypto';

/** pg treats an empty name as an unnamed statement. */
const UNNAMED = '';
// Utility statements name their objects in the text (an agent's role and schema), so each text runs
// once: naming them would only fill the limit and leave later queries unnamed.
const UTILITY = /^\s*(?:CREATE|ALTER|DROP|GRANT|REVOKE|DO)\b/i;

/**
 * A `statementNameGenerator` for `@prisma/adapter-pg`. The name is a digest of the SQL, so one text
 * always gets one name. Statements live in the server's memory for as long as the connection does,
 * so after `limit` distinct texts (say, IN lists of ever new lengths) further ones go unnamed; a
 * limit of 0 names none.
 */
export function statementNamesBySql(limit = 500): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= limit || UTILITY.test(sql)) return UNNAMED;
    const name = `ap_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
    names.set(sql, name);
    return name;
  };
}
