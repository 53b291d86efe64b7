import type { Db } from '@agentplane/db';

/**
 * The same database client, counting the statements sent through `methods` (`db.sql` by default): to
 * show what shares a query.
 */
export function countingSql(
  db: Db,
  methods: readonly (keyof Db)[] = ['sql'],
): { db: Db; counter: { statements: number } } {
  const counter = { statements: 0 };
  const counted = new Set<PropertyKey>(methods);
  const counting = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (!counted.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counter.statements++;
        return value.apply(target, args);
      };
    },
  });
  return { db: counting, counter };
}
