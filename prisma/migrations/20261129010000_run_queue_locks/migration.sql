-- Row locks that serialise an agent's run queue (a thread's enqueues; a caller's count of waiting
-- runs), in place of the engine's advisory locks. Any role may take any advisory lock, and an agent's
-- id is no secret: another tenant's engine role could compute the keys of an agent's threads and
-- callers, hold them, and stall its queue for as long as it kept its session. A row here is locked
-- only by a role that may update it, which row-level security limits to the agent's own engine role.
-- Keys are hashed into a fixed number of slots per agent and scope (the CHECK below), so the table
-- holds at most 512 rows per agent, which go with the agent and need no cleanup; two keys that share
-- a slot only wait for each other for the length of one enqueue's transaction.
CREATE TABLE "run_queue_locks" (
    "agent_id" UUID NOT NULL,
    -- thread or caller
    "scope" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "taken_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_queue_locks_pkey" PRIMARY KEY ("agent_id", "scope", "slot"),
    CONSTRAINT "run_queue_locks_scope_check" CHECK ("scope" IN ('thread', 'caller')),
    CONSTRAINT "run_queue_locks_slot_check" CHECK ("slot" BETWEEN 0 AND 255),
    CONSTRAINT "run_queue_locks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

ALTER TABLE "run_queue_locks" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_locks_its_queue ON "run_queue_locks" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
-- UPDATE of one column, not of the table: a table-wide UPDATE (or DELETE) privilege also lets a role
-- LOCK TABLE in SHARE or EXCLUSIVE mode, which would stall every agent's queue at once. The column
-- is enough for the engine's INSERT ... ON CONFLICT DO UPDATE, and for row locks.
GRANT SELECT, INSERT ON "run_queue_locks" TO agentplane_engine;
GRANT UPDATE ("taken_at") ON "run_queue_locks" TO agentplane_engine;
