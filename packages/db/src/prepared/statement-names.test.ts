import { describe, expect, it } from '@jest/globals';
import { statementNamesBySql } from './statement-names.js';

describe('statementNamesBySql', () => {
  it('gives one SQL text one name, and different texts different names', () => {
    const nameOf = statementNamesBySql();
    const first = nameOf({ sql: 'SELECT 1' });
    expect(first).toMatch(/^ap_[\w-]{22}$/);
    expect(nameOf({ sql: 'SELECT 1' })).toBe(first);
    expect(nameOf({ sql: 'SELECT 2' })).not.toBe(first);
  });

  it('leaves texts past the limit unnamed, and keeps naming the ones it knows', () => {
    const nameOf = statementNamesBySql(2);
    const known = nameOf({ sql: 'SELECT 1' });
    nameOf({ sql: 'SELECT 2' });
    expect(nameOf({ sql: 'SELECT 3' })).toBe('');
    expect(nameOf({ sql: 'SELECT 1' })).toBe(known);
  });
});
