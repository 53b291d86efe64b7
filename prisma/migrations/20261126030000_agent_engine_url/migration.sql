-- Where the agent's engine answers (issue 19): the console's playground streams runs from it and shows its
-- /health. Only browsers call it, so it is outside engine_config and publishing ignores it.
ALTER TABLE "agents" ADD COLUMN "engine_url" TEXT;
