-- The locks manager replicas take to serialise a job (the engine-role upgrade, the first signing key,
-- the engine credentials checked against the platform's engine connections),
-- as row locks of this table: no engine role has a privilege on it, so none can take or hold them. An
-- advisory lock, which these were, any role may take and hold.
CREATE TABLE "manager_locks" (
    "name" TEXT NOT NULL,

    CONSTRAINT "manager_locks_pkey" PRIMARY KEY ("name")
);

INSERT INTO "manager_locks" ("name") VALUES ('engine-roles-upgrade'), ('signing-key-creation'), ('engine-credentials');
