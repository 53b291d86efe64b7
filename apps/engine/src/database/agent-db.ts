// One agent's handle on the engine's database: the pg.Pool calls the engine's stores make (query,
// connect), each run inside a transaction whose first statement is SET LOCAL ROLE to the agent's own
// role. Row-level security is keyed on current_user, so it holds statement by statement whatever login
// the process has: a pool's role, which can do nothing by itself, or, for a dedicated engine, the agent's
// role itself (SET ROLE to oneself is allowed, so both placements run this same code). The role ends with
// the transaction; a connection goes back to the shared pool with none.
import { engineRoleName } from '@agentplane/db/engine-roles';
import type pg from 'pg';
import { statementForRole } from './role-statements.js';

/** A statement as text or as a pg QueryConfig (a named prepared statement, a query timeout). */
export type AgentQuery = <Row extends pg.QueryResultRow = pg.QueryResultRow>(
  statement: string | pg.QueryConfig,
  values?: unknown[],
) => Promise<pg.QueryResult<Row>>;

/** A checked-out connection, as pg.PoolClient is used here: BEGIN ... COMMIT or ROLLBACK, then release. */
export type AgentClient = { query: AgentQuery; release: (error?: Error | boolean) => void };

export type AgentDb = {
  /** One statement, in a transaction of its own under the agent's role. */
  query: AgentQuery;
  /** A connection whose BEGIN takes the agent's role; a statement sent outside BEGIN gets a transaction of its own. */
  connect: () => Promise<AgentClient>;
};

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const END = /^\s*(COMMIT|ROLLBACK|END|ABORT)\s*;?\s*$/i;

export function createAgentDb(connect: () => Promise<pg.PoolClient>, agentId: string): AgentDb {
  // A name made from a checked UUID: SET ROLE takes no bind parameter.
  const setRole = `SET LOCAL ROLE ${engineRoleName(agentId)}`;
  // 64 bits of the id: with the statement's own name, well within PostgreSQL's 63 bytes for a name.
  const roleKey = agentId.replaceAll('-', '').slice(0, 16);
  const forRole = (client: pg.PoolClient, statement: string | pg.QueryConfig) =>
    statementForRole(client, statement, roleKey);

  const inOwnTransaction = async <Row extends pg.QueryResultRow>(
    client: pg.PoolClient,
    statement: string | pg.QueryConfig,
    values: unknown[] | undefined,
  ): Promise<pg.QueryResult<Row>> => {
    try {
      // A refused role (the agent moved or deleted) fails here, in the transaction: the ROLLBACK below
      // hands the connection back clean.
      await client.query(`BEGIN; ${setRole}`);
      const result = await client.query<Row>(forRole(client, statement), values);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };

  const wrap = (client: pg.PoolClient): AgentClient => {
    let inTransaction = false;
    let released = false;
    const query: AgentQuery = async <Row extends pg.QueryResultRow>(
      statement: string | pg.QueryConfig,
      values?: unknown[],
    ) => {
      if (released) throw new Error('query on a released connection');
      const text = typeof statement === 'string' ? statement : statement.text;
      if (BEGIN.test(text)) {
        if (values !== undefined && values.length > 0) throw new Error('BEGIN takes no parameters');
        // Whatever the BEGIN said (an isolation level), the role is taken in the same round trip.
        inTransaction = true;
        try {
          return await client.query<Row>(`${text.replace(/;\s*$/, '')}; ${setRole}`);
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          inTransaction = false;
          throw error;
        }
      }
      if (END.test(text)) {
        inTransaction = false;
        return client.query<Row>(text);
      }
      return inTransaction
        ? client.query<Row>(forRole(client, statement), values)
        : inOwnTransaction<Row>(client, statement, values);
    };
    return {
      query,
      release: (error) => {
        if (released) return;
        released = true;
        // A connection let go inside a transaction is not handed to anyone else in that state.
        client.release(inTransaction ? true : error);
      },
    };
  };

  return {
    query: async (statement, values) => {
      const client = await connect();
      let broken: Error | undefined;
      try {
        return await inOwnTransaction(client, statement, values);
      } catch (error) {
        broken = isConnectionError(error) ? (error as Error) : undefined;
        throw error;
      } finally {
        client.release(broken);
      }
    },
    connect: async () => wrap(await connect()),
  };
}

// A statement's own error (a constraint, a policy) leaves the connection usable; a lost server does not.
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code.startsWith('57P');
}
