// A named prepared statement, renamed per role. PostgreSQL prepares a statement once per name and
// connection, but one that row-level security touches is analysed and planned again every time it
// runs under another role than the last: under one shared name, a pool engine's connections, changing
// role at nearly every transaction, would plan nearly every statement again. Under a name of its own
// per role, each role keeps its plan. The cost is memory in the database's backend, one prepared
// statement per name and role (some 20 MB in a backend for 100 roles' statements), so a connection
// keeps its own names for a bounded number of roles: the ones it met first, an agent's home shard
// sending it the same few (connection-shards.ts) but a busy shard's agents borrowing others'. Any
// other role's statements run under the shared name, planned again as before, and correct either way,
// since PostgreSQL checks the role at every execution.
import type pg from 'pg';

/** Roles whose statements a connection keeps prepared under their own names. */
export const ROLES_PREPARED_PER_CONNECTION = 128;

const rolesPrepared = new WeakMap<object, Set<string>>();

/** `statement` as it should run on `connection` for the role `roleKey` (a short, stable name of it). */
export function statementForRole(
  connection: object,
  statement: string | pg.QueryConfig,
  roleKey: string,
): string | pg.QueryConfig {
  if (typeof statement === 'string' || statement.name === undefined) return statement;
  let roles = rolesPrepared.get(connection);
  if (roles === undefined) {
    roles = new Set();
    rolesPrepared.set(connection, roles);
  }
  if (!roles.has(roleKey)) {
    if (roles.size >= ROLES_PREPARED_PER_CONNECTION) return statement;
    roles.add(roleKey);
  }
  return { ...statement, name: `${statement.name}:${roleKey}` };
}
