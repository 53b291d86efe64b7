import type { Db } from '@agentplane/db';

/** The same database client, counting the statements sent through `db.sql`: to show what shares a query. */
export function countingSql(db: Db): { db: Db; counter: { statements: number } } {
  const counter = { statements: 0 };
  const counting = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'sql') return Reflect.get(target, property, receiver);
      return (...args: Parameters<Db['sql']>) => {
        counter.statements++;
        return target.sql(...args);
      };
    },
  });
  return { db: counting, counter };
}
