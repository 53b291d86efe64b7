-- Each agent's NOTIFY channels, named at random when its engine role is provisioned: one for config
-- changes (the manager's), one for run news (its engines'). Row-level security lets an engine role read
-- its own agent's names only. The channels all engines shared (engine_config_changed, agent_run_events)
-- told any engine role, by LISTEN, every agent's id and run ids, and let it NOTIFY wake-ups into any
-- agent's engines; a name no other role can read does neither, and what a wake-up carries only makes
-- an engine read its own rows again.
CREATE TABLE "engine_channels" (
    "agent_id" UUID NOT NULL,
    "config_channel" TEXT NOT NULL,
    "run_channel" TEXT NOT NULL,

    CONSTRAINT "engine_channels_pkey" PRIMARY KEY ("agent_id")
);

CREATE UNIQUE INDEX "engine_channels_config_channel_key" ON "engine_channels"("config_channel");
CREATE UNIQUE INDEX "engine_channels_run_channel_key" ON "engine_channels"("run_channel");

ALTER TABLE "engine_channels" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_reads_own_channels ON "engine_channels" FOR SELECT TO agentplane_engine
  USING ("agent_id" = engine_agent_id());
GRANT SELECT ON "engine_channels" TO agentplane_engine;

-- Agents of before: their roles get their names here (new ones at provisioning, packages/db engine-roles.ts).
INSERT INTO "engine_channels" ("agent_id", "config_channel", "run_channel")
SELECT "id", 'agent_' || replace(gen_random_uuid()::text, '-', ''), 'agent_' || replace(gen_random_uuid()::text, '-', '')
FROM "agents";
