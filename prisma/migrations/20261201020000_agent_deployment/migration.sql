-- Where each agent is served (issue 29): on a pool engine (deployment_mode 'pool', deployment_pool
-- naming one of the operator's ENGINE_POOLS) or on a dedicated engine of its own. Agents that exist
-- before this migration had dedicated engines, and stay on them. The CHECKs are CASEs whose branches
-- are never NULL: a CHECK that evaluates to NULL passes.
ALTER TABLE "agents"
  ADD COLUMN "deployment_mode" TEXT NOT NULL DEFAULT 'dedicated',
  ADD COLUMN "deployment_pool" TEXT,
  ADD CONSTRAINT "agents_deployment_check" CHECK (
    CASE "deployment_mode"
      WHEN 'dedicated' THEN "deployment_pool" IS NULL
      WHEN 'pool' THEN "deployment_pool" IS NOT NULL AND "deployment_pool" ~ '^[a-z][a-z0-9_]{0,31}$'
      ELSE false
    END
  );

-- A workspace's own default placement for the agents created in it; both null: the operator's
-- (DEFAULT_ENGINE_POOL).
ALTER TABLE "workspaces"
  ADD COLUMN "default_deployment_mode" TEXT,
  ADD COLUMN "default_deployment_pool" TEXT,
  ADD CONSTRAINT "workspaces_default_deployment_check" CHECK (
    CASE
      WHEN "default_deployment_mode" IS NULL OR "default_deployment_mode" = 'dedicated'
        THEN "default_deployment_pool" IS NULL
      WHEN "default_deployment_mode" = 'pool'
        THEN "default_deployment_pool" IS NOT NULL AND "default_deployment_pool" ~ '^[a-z][a-z0-9_]{0,31}$'
      ELSE false
    END
  );

-- Platform operators may issue engine database credentials (for any agent or pool); no workspace role
-- may. Only the manager CLI on the manager's host (`agentplane-manager operator`) makes one.
ALTER TABLE "users" ADD COLUMN "platform_operator" BOOLEAN NOT NULL DEFAULT false;

-- Serialises the start-up provisioning of the pool roles and the reconciliation of their grants.
INSERT INTO "manager_locks" ("name") VALUES ('engine-pools');
