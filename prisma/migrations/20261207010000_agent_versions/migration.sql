-- Agent versions (issue 35): every publish that gives an agent a new engine_configs.version records
-- that version, immutable, in the same transaction. The snapshot holds what the agent's own write set
-- (its spec, secrets sealed with the platform key) and the engine_config it derived (secrets sealed
-- with the platform key too, never an engine's). Only the manager reads or writes it: no engine role
-- is granted it.
CREATE TABLE "agent_versions" (
    "agent_id" UUID NOT NULL,
    "version" BIGINT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "cause" TEXT NOT NULL,
    "snapshot" JSONB NOT NULL,
    "author_id" UUID,
    "message" TEXT,
    "rolled_back_from" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "agent_versions_pkey" PRIMARY KEY ("agent_id", "version")
);
CREATE INDEX "agent_versions_workspace_id_idx" ON "agent_versions"("workspace_id");
CREATE INDEX "agent_versions_author_id_idx" ON "agent_versions"("author_id");
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- A version outlives its author's account.
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The config version an engine ran each run with: set when the run starts (created running, or claimed
-- from the queue by whichever replica). Null for runs recorded before versions existed. The engine
-- roles' table grant on agent_runs covers the new column. The index serves retention, which keeps the
-- versions runs still reference.
ALTER TABLE "agent_runs" ADD COLUMN "agent_version" BIGINT;
CREATE INDEX "agent_runs_agent_id_agent_version_idx" ON "agent_runs"("agent_id", "agent_version");

-- Serialises the start-up backfill of a version for agents published before versions existed.
INSERT INTO "manager_locks" ("name") VALUES ('agent-versions-backfill');
