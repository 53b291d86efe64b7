// A named statement renamed per role, for a bounded number of roles per connection.
import { describe, expect, it } from '@jest/globals';
import { ROLES_PREPARED_PER_CONNECTION, statementForRole } from './role-statements.js';

const STATEMENT = { name: 'load-thread', text: 'SELECT 1' };

describe('a statement for a role', () => {
  it('is renamed for the role, and a plain or unnamed statement is left as it is', () => {
    const connection = {};
    expect(statementForRole(connection, STATEMENT, 'aaaa')).toEqual({ name: 'load-thread:aaaa', text: 'SELECT 1' });
    expect(statementForRole(connection, 'SELECT 1', 'aaaa')).toBe('SELECT 1');
    expect(statementForRole(connection, { text: 'SELECT 1' }, 'aaaa')).toEqual({ text: 'SELECT 1' });
  });

  it('keeps its own names for the first roles a connection meets, and the shared name for any more', () => {
    const connection = {};
    const roles = Array.from({ length: ROLES_PREPARED_PER_CONNECTION + 1 }, (_, i) => `role${i}`);
    const names = roles.map((role) => (statementForRole(connection, STATEMENT, role) as { name: string }).name);
    expect(names.slice(0, -1)).toEqual(roles.slice(0, -1).map((role) => `load-thread:${role}`));
    expect(names.at(-1)).toBe('load-thread');
    // A role met before keeps its name; another connection has room of its own.
    expect(statementForRole(connection, STATEMENT, 'role0')).toMatchObject({ name: 'load-thread:role0' });
    expect(statementForRole({}, STATEMENT, roles.at(-1) as string)).toMatchObject({
      name: `load-thread:${roles.at(-1)}`,
    });
  });
});
