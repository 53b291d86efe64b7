// The tables of LangGraph's PostgresSaver (@langchain/langgraph-checkpoint-postgres 1.x, its
// migrations 0 to 4), created by the manager in the agent's own schema at provisioning: the engine's
// role may read and write them but create nothing, so the saver's setup() never runs in an engine.
// The versions are recorded as setup() records them, so a setup() run anyway would find nothing to do.
// apps/engine's checkpoint test compares these with what setup() itself creates.

export const CHECKPOINT_MIGRATION_VERSIONS = [0, 1, 2, 3, 4];

export function checkpointTableStatements(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${schema}.checkpoint_migrations (v INTEGER PRIMARY KEY)`,
    `CREATE TABLE IF NOT EXISTS ${schema}.checkpoints (
      thread_id TEXT NOT NULL,
      checkpoint_ns TEXT NOT NULL DEFAULT '',
      checkpoint_id TEXT NOT NULL,
      parent_checkpoint_id TEXT,
      type TEXT,
      checkpoint JSONB NOT NULL,
      metadata JSONB NOT NULL DEFAULT '{}',
      PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))`,
    `CREATE TABLE IF NOT EXISTS ${schema}.checkpoint_blobs (
      thread_id TEXT NOT NULL,
      checkpoint_ns TEXT NOT NULL DEFAULT '',
      channel TEXT NOT NULL,
      version TEXT NOT NULL,
      type TEXT NOT NULL,
      blob BYTEA,
      PRIMARY KEY (thread_id, checkpoint_ns, channel, version))`,
    `CREATE TABLE IF NOT EXISTS ${schema}.checkpoint_writes (
      thread_id TEXT NOT NULL,
      checkpoint_ns TEXT NOT NULL DEFAULT '',
      checkpoint_id TEXT NOT NULL,
      task_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      channel TEXT NOT NULL,
      type TEXT,
      blob BYTEA NOT NULL,
      PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))`,
    // In a DO block, a utility statement, which the manager's pool does not keep prepared (its text is per agent).
    `DO $$ BEGIN
      INSERT INTO ${schema}.checkpoint_migrations (v)
      SELECT unnest(ARRAY[${CHECKPOINT_MIGRATION_VERSIONS.join(', ')}]) ON CONFLICT DO NOTHING;
    END $$`,
  ];
}

/** The tables the engine writes; checkpoint_migrations it may only read. */
export const CHECKPOINT_DATA_TABLES = ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'];
