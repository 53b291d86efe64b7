-- Engines connect as a login role of their own, one per agent (named agentplane_engine_<agent id
-- without dashes>, created by the manager with the agent), each a member of this group. Row-level
-- security below limits the group to the rows of the agent whose role is `current_user`: a role name
-- cannot be changed from inside a session, unlike a GUC, and a SET ROLE to the group itself maps to
-- no agent and sees nothing. Roles are cluster-wide: several databases on one server share the group.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'agentplane_engine') THEN
    CREATE ROLE agentplane_engine NOLOGIN;
  END IF;
  -- Granted to the group once, not per agent: concurrent GRANTs on one database's ACL fail
  -- ("tuple concurrently updated"), and agents are created concurrently. It matters where the operator
  -- has revoked CONNECT from PUBLIC.
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO agentplane_engine', current_database());
END
$$;

-- The agent whose engine role is connected, or NULL for any other role.
CREATE FUNCTION engine_agent_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN current_user ~ '^agentplane_engine_[0-9a-f]{32}$'
              THEN substr(current_user, length('agentplane_engine_') + 1)::uuid END
$$;

-- The table owner (the manager, which runs the migrations) is not subject to these policies.
ALTER TABLE "engine_configs" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_reads_own_config ON "engine_configs" FOR SELECT TO agentplane_engine
  USING ("agent_id" = engine_agent_id());
GRANT SELECT ON "engine_configs" TO agentplane_engine;

ALTER TABLE "inbound_messages" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_owns_its_queue ON "inbound_messages" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
GRANT SELECT, INSERT, UPDATE ON "inbound_messages" TO agentplane_engine;

ALTER TABLE "conversation_threads" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_owns_its_threads ON "conversation_threads" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
GRANT SELECT, INSERT, UPDATE ON "conversation_threads" TO agentplane_engine;

-- A message carries its thread's agent, held equal by the foreign key, so that its policy needs no
-- lookup of the thread: the engine's one-statement append creates a thread and its first messages
-- together, and a policy subquery would not see that thread yet.
ALTER TABLE "conversation_messages" ADD COLUMN "agent_id" UUID;
UPDATE "conversation_messages" m SET "agent_id" = t."agent_id" FROM "conversation_threads" t WHERE t."id" = m."thread_id";
ALTER TABLE "conversation_messages" ALTER COLUMN "agent_id" SET NOT NULL;
CREATE UNIQUE INDEX "conversation_threads_id_agent_id_key" ON "conversation_threads"("id", "agent_id");
ALTER TABLE "conversation_messages" DROP CONSTRAINT "conversation_messages_thread_id_fkey";
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_thread_id_agent_id_fkey"
  FOREIGN KEY ("thread_id", "agent_id") REFERENCES "conversation_threads"("id", "agent_id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "conversation_messages" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_owns_its_messages ON "conversation_messages" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
GRANT SELECT, INSERT ON "conversation_messages" TO agentplane_engine;
