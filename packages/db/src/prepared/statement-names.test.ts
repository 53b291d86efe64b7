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

  it('leaves utility statements unnamed, as each names its own objects and runs once', () => {
    const nameOf = statementNamesBySql(2);
    for (const sql of [
      'CREATE ROLE "a"',
      '  grant x TO "a"',
      'ALTER ROLE "a" PASSWORD \'x\'',
      'DROP ROLE "a"',
      'DO $$ $$',
    ]) {
      expect(nameOf({ sql })).toBe('');
    }
    expect(nameOf({ sql: 'SELECT 1' })).not.toBe('');
    expect(nameOf({ sql: 'SELECT 2' })).not.toBe('');
  });

  it('leaves texts past the limit unnamed, and keeps naming the ones it knows', () => {
    const nameOf = statementNamesBySql(2);
    const known = nameOf({ sql: 'SELECT 1' });
    nameOf({ sql: 'SELECT 2' });
    expect(nameOf({ sql: 'SELECT 3' })).toBe('');
    expect(nameOf({ sql: 'SELECT 1' })).toBe(known);
  });
});
