-- Runs pinned to an agent version (issue 36, experiments): an experiment compares versions that are
-- not the one the agent serves, so a run may name the version it must run with. Its engine reads that
-- version's config from pinned_engine_configs, sealed by the manager with the key of the engine that
-- serves the agent, as engine_configs is; the snapshots in agent_versions stay the manager's alone.

-- What the experiment worker writes into agent_runs.source. Not used in this transaction (PostgreSQL
-- forbids using a value added in the same one).
ALTER TYPE "RunSource" ADD VALUE 'experiment';

-- The version the run must run with; NULL: whichever the claiming engine serves. The engine roles'
-- table grant on agent_runs covers the new column.
ALTER TABLE "agent_runs" ADD COLUMN "pinned_version" BIGINT;

CREATE TABLE "pinned_engine_configs" (
    "agent_id" UUID NOT NULL,
    "version" BIGINT NOT NULL,
    "workspace_id" UUID NOT NULL,
    -- That version's engine_config, its secrets sealed with the agent's placement key.
    "config" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "pinned_engine_configs_pkey" PRIMARY KEY ("agent_id", "version")
);
CREATE INDEX "pinned_engine_configs_workspace_id_idx" ON "pinned_engine_configs"("workspace_id");
ALTER TABLE "pinned_engine_configs" ADD CONSTRAINT "pinned_engine_configs_agent_id_fkey"
  FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "pinned_engine_configs" ADD CONSTRAINT "pinned_engine_configs_workspace_id_fkey"
  FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- As engine_configs: an engine role reads its own agent's rows, and nothing else.
ALTER TABLE "pinned_engine_configs" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_reads_own_pinned_configs ON "pinned_engine_configs" FOR SELECT TO agentplane_engine
  USING ("agent_id" = engine_agent_id());
GRANT SELECT ON "pinned_engine_configs" TO agentplane_engine;
