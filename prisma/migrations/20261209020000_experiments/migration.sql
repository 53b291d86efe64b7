-- Experiments (issue 36): a dataset version run against some of an agent's versions, each (item,
-- version, repeat) one background run on the agent's engine, pinned to its version, then graded by the
-- experiment's scorers. The manager's worker alone reads and writes these tables: no engine role is
-- granted them.
CREATE TABLE "experiments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    -- NULL once the dataset is deleted: a finished experiment keeps its results, a running one fails.
    "dataset_id" UUID,
    "dataset_version" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "agent_versions" BIGINT[] NOT NULL,
    -- The scorers (contracts' ZScorerList), their secrets sealed with SECRETS_KEY.
    "scorers" JSONB NOT NULL,
    "repeats" INTEGER NOT NULL,
    "concurrency" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "status_reason" TEXT,
    "created_by" UUID,
    -- Items of the dataset version and runs in all (items x versions x repeats), fixed at create.
    "item_count" INTEGER NOT NULL,
    "run_count" INTEGER NOT NULL,
    -- The worker replica driving it, until when: its recording and scoring happen outside any
    -- transaction, and the lease keeps a second replica from grading the same runs meanwhile.
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "experiments_status_check"
      CHECK ("status" IN ('running', 'cancelling', 'cancelled', 'completed', 'failed'))
);
CREATE INDEX "experiments_agent_id_created_at_id_idx" ON "experiments"("agent_id", "created_at", "id");
CREATE INDEX "experiments_workspace_id_status_idx" ON "experiments"("workspace_id", "status");
CREATE INDEX "experiments_dataset_id_idx" ON "experiments"("dataset_id");
CREATE INDEX "experiments_created_by_idx" ON "experiments"("created_by");
-- What the worker claims: the experiments still to be driven.
CREATE INDEX "experiments_active_idx" ON "experiments"("created_at") WHERE "status" IN ('running', 'cancelling');
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- One row per (item, version, repeat), all written when the experiment is created (state pending), so
-- what is left to run is a query and a restart finds every row where it was. A row's run is the
-- agent_runs row of the deterministic id experiment:<experiment>:<item>:<version>:<repeat>.
CREATE TABLE "experiment_results" (
    "experiment_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "agent_version" BIGINT NOT NULL,
    "repeat" INTEGER NOT NULL,
    -- The item's place in the dataset version, from 0: results and exports read in the dataset's order.
    "position" INTEGER NOT NULL,
    "run_id" TEXT,
    "state" TEXT NOT NULL DEFAULT 'pending',
    -- The final assistant reply, cut at EXPERIMENT_REPLY_MAX_LENGTH characters.
    "reply" TEXT,
    "reply_truncated" BOOLEAN NOT NULL DEFAULT false,
    "tool_calls" JSONB,
    "latency_ms" INTEGER,
    -- {input, output, total}, when the run reported its usage.
    "tokens" JSONB,
    -- One ScorerResult per scorer, in the experiment's order; written once.
    "scores" JSONB,
    "error" TEXT,
    "error_code" TEXT,
    "queued_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "experiment_results_pkey" PRIMARY KEY ("experiment_id", "item_id", "agent_version", "repeat"),
    CONSTRAINT "experiment_results_state_check"
      CHECK ("state" IN ('pending', 'queued', 'scored', 'failed', 'cancelled'))
);
CREATE INDEX "experiment_results_experiment_id_state_idx" ON "experiment_results"("experiment_id", "state");
CREATE INDEX "experiment_results_experiment_id_position_idx"
  ON "experiment_results"("experiment_id", "position", "agent_version", "repeat");
ALTER TABLE "experiment_results" ADD CONSTRAINT "experiment_results_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;
