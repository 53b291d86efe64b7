// Thread memory for LangGraph graphs: LangGraph's own PostgreSQL checkpointer in the agent's own schema
// (langgraph_<agent id>, created with its tables by the manager when it provisioned the agent's role),
// or process memory without a database. The engine's role may use those tables but create nothing,
// so the saver's setup() is not run here.
import { checkpointSchemaName } from '@agentplane/db/engine-roles';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import type { AgentDb } from '../../database/agent-db.js';

export type Checkpointer = { saver: BaseCheckpointSaver; kind: 'postgres' | 'memory'; close: () => Promise<void> };

export async function createCheckpointer(db: AgentDb | undefined, agentId: string): Promise<Checkpointer> {
  if (db === undefined) return { saver: new MemorySaver(), kind: 'memory', close: async () => {} };
  const schema = checkpointSchemaName(agentId);
  // A schema that is missing or not ours shows now, at load, rather than in the first run.
  await db.query(`SELECT 1 FROM "${schema}".checkpoints LIMIT 0`);
  // The saver asks a pg.Pool for query, connect (BEGIN ... COMMIT, release) and end, which the agent's
  // handle gives, each under the agent's role; end is the engine database's, so it is not passed on.
  const pool = { query: db.query, connect: db.connect, end: async () => {} } as unknown as pg.Pool;
  return { saver: new PostgresSaver(pool, undefined, { schema }), kind: 'postgres', close: async () => {} };
}
