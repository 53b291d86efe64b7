-- Guardrails (issue 33): a managed resource agents reference, and a workspace's defaults every agent of
-- it applies. Both links RESTRICT the guardrail's delete, so a delete racing an attach is a 409, never a
-- link to nothing. A run's record keeps the rules that fired.
CREATE TABLE "guardrails" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "guardrails_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "guardrails_workspace_id_created_at_id_idx" ON "guardrails"("workspace_id", "created_at", "id");
ALTER TABLE "guardrails" ADD CONSTRAINT "guardrails_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "agent_guardrails" (
    "agent_id" UUID NOT NULL,
    "guardrail_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "agent_guardrails_pkey" PRIMARY KEY ("agent_id", "guardrail_id")
);
CREATE INDEX "agent_guardrails_guardrail_id_idx" ON "agent_guardrails"("guardrail_id");
ALTER TABLE "agent_guardrails" ADD CONSTRAINT "agent_guardrails_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "agent_guardrails" ADD CONSTRAINT "agent_guardrails_guardrail_id_fkey" FOREIGN KEY ("guardrail_id") REFERENCES "guardrails"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "workspace_guardrails" (
    "workspace_id" UUID NOT NULL,
    "guardrail_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workspace_guardrails_pkey" PRIMARY KEY ("workspace_id", "guardrail_id")
);
CREATE INDEX "workspace_guardrails_guardrail_id_idx" ON "workspace_guardrails"("guardrail_id");
ALTER TABLE "workspace_guardrails" ADD CONSTRAINT "workspace_guardrails_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "workspace_guardrails" ADD CONSTRAINT "workspace_guardrails_guardrail_id_fkey" FOREIGN KEY ("guardrail_id") REFERENCES "guardrails"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

ALTER TABLE "agent_runs" ADD COLUMN "guardrail_actions" JSONB NOT NULL DEFAULT '[]';
