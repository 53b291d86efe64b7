-- Budgets (issue 18): an agent and a workspace may each carry a budget, in tokens or USD per UTC day
-- or month. The manager keeps it on the agent's and the workspace's row and publishes both in the
-- agent's engine_config; engines refuse runs once the period's spend reached it.
ALTER TABLE "agents" ADD COLUMN "budget" JSONB;
ALTER TABLE "workspaces" ADD COLUMN "budget" JSONB;

-- What was spent, per scope (an agent, or a workspace across its agents) and UTC day. Every replica
-- adds a run's usage to its agent's and its workspace's rows with one INSERT ... ON CONFLICT DO UPDATE
-- in the transaction that records the run's end: the row lock serialises concurrent adds, so none is
-- lost. A month's spend is the sum of its days (at most 31 rows through the primary key).
CREATE TABLE "budget_spend" (
    "scope" TEXT NOT NULL,
    -- The agent's id or the workspace's id, as `scope` says.
    "scope_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "tokens" BIGINT NOT NULL DEFAULT 0,
    -- Exact decimal sums: a float would drift from the runs' own figures after enough additions.
    "cost_usd" DECIMAL(65,30) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budget_spend_pkey" PRIMARY KEY ("scope", "scope_id", "day"),
    CONSTRAINT "budget_spend_scope_check" CHECK ("scope" IN ('agent', 'workspace'))
);

-- The workspace of the agent whose engine role is connected (through its own engine_configs row).
CREATE FUNCTION engine_workspace_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT workspace_id FROM engine_configs WHERE agent_id = engine_agent_id()
$$;

-- An engine reads and adds to exactly its agent's rows and its workspace's rows: the workspace's
-- spend is what every engine of the workspace adds to, and what each must read to enforce its budget.
ALTER TABLE "budget_spend" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_counts_its_spend ON "budget_spend" FOR ALL TO agentplane_engine
  USING (("scope" = 'agent' AND "scope_id" = engine_agent_id())
      OR ("scope" = 'workspace' AND "scope_id" = engine_workspace_id()))
  WITH CHECK (("scope" = 'agent' AND "scope_id" = engine_agent_id())
      OR ("scope" = 'workspace' AND "scope_id" = engine_workspace_id()));
GRANT SELECT, INSERT, UPDATE ON "budget_spend" TO agentplane_engine;
