// Thread memory for LangGraph graphs: LangGraph's own PostgreSQL checkpointer in a schema of its own
// ("langgraph", next to the platform's tables, never among them), or process memory without a database.
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';

export const CHECKPOINT_SCHEMA = 'langgraph';

// Engines of different agents share one database and may start together: their setups take turns.
const SETUP_LOCK = 'agentplane.langgraph.checkpointer.setup';

export type Checkpointer = { saver: BaseCheckpointSaver; kind: 'postgres' | 'memory'; close: () => Promise<void> };

export async function createCheckpointer(databaseUrl: string | undefined): Promise<Checkpointer> {
  if (databaseUrl === undefined) return { saver: new MemorySaver(), kind: 'memory', close: async () => {} };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 5 });
  pool.on('error', () => {
    // An idle client that lost its server: the pool replaces it; queries report their own errors.
  });
  const saver = new PostgresSaver(pool, undefined, { schema: CHECKPOINT_SCHEMA });
  try {
    const lock = await pool.connect();
    try {
      await lock.query('SELECT pg_advisory_lock(hashtext($1))', [SETUP_LOCK]);
      // setup() creates the schema and tables and applies the saver's own migrations, idempotently.
      await saver.setup();
    } finally {
      await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [SETUP_LOCK]).catch(() => undefined);
      lock.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { saver, kind: 'postgres', close: () => pool.end() };
}
