// Thread memory for LangGraph graphs: LangGraph's own PostgreSQL checkpointer in the agent's own schema
// (langgraph_<agent id>, created with its tables by the manager when it provisioned the agent's role),
// or process memory without a database. The engine's role may use those tables but create nothing,
// so the saver's setup() is not run here.
import { checkpointSchemaName } from '@agentplane/db/engine-roles';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';

export type Checkpointer = { saver: BaseCheckpointSaver; kind: 'postgres' | 'memory'; close: () => Promise<void> };

export async function createCheckpointer(databaseUrl: string | undefined, agentId: string): Promise<Checkpointer> {
  if (databaseUrl === undefined) return { saver: new MemorySaver(), kind: 'memory', close: async () => {} };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 5 });
  pool.on('error', () => {
    // An idle client that lost its server: the pool replaces it; queries report their own errors.
  });
  const schema = checkpointSchemaName(agentId);
  try {
    // A schema that is missing or not ours shows now, at load, rather than in the first run.
    await pool.query(`SELECT 1 FROM "${schema}".checkpoints LIMIT 0`);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { saver: new PostgresSaver(pool, undefined, { schema }), kind: 'postgres', close: () => pool.end() };
}
