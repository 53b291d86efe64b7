-- Observability settings (issue 18): where an agent's engine exports its traces. A workspace's
-- resource like sso_configs, referenced by at most one per agent through agents.observability_id,
-- which RESTRICT keeps from dangling (a referenced setting answers 409 to a DELETE). Secrets inside
-- `config` are sealed with SECRETS_KEY. Engines get no grant here: they read the derived copy in
-- their own engine_configs row, sealed with their agent's key.
CREATE TABLE "observability_configs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "observability_configs_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "observability_configs_workspace_id_created_at_id_idx" ON "observability_configs"("workspace_id", "created_at", "id");

ALTER TABLE "observability_configs" ADD CONSTRAINT "observability_configs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "agents" ADD COLUMN "observability_id" UUID;

CREATE INDEX "agents_observability_id_idx" ON "agents"("observability_id");

ALTER TABLE "agents" ADD CONSTRAINT "agents_observability_id_fkey" FOREIGN KEY ("observability_id") REFERENCES "observability_configs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
