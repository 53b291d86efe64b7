-- Online scoring (issue 36): a sample of an agent's production runs graded by scorers after they end.
-- Whether a run is sampled is decided once, by a trigger on agent_runs in the transaction that stores
-- the run's end (whichever engine replica or pool stores it), from a hash of the run's id: a restart of
-- any process neither loses nor repeats the decision. The sampled run waits in a bounded queue that the
-- managers' scoring workers lease from; its scores are kept beside the run and go with it. No engine
-- role gains a right here: the trigger's function runs as the migration's owner, and engine roles hold
-- no grant on these tables (nor can they read an agent's scorers, whose judge keys are sealed anyway).

CREATE TABLE "online_scoring_settings" (
    "agent_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "sample_rate" DOUBLE PRECISION NOT NULL,
    -- The RunSource values sampled; never 'experiment' (the trigger skips those whatever this says).
    "sources" TEXT[] NOT NULL,
    -- contracts' ZScorerList, judge keys and URL-query secrets sealed with SECRETS_KEY.
    "scorers" JSONB NOT NULL,
    -- The most runs the agent may have waiting to be scored: written by the manager (its
    -- ONLINE_SCORING_MAX_QUEUED_PER_AGENT) with the settings and at each start.
    "max_queued" INTEGER NOT NULL,
    -- Sampled runs not queued because max_queued were waiting. A bigint: an overflow would fail the
    -- engine's run update that the run came from.
    "dropped_runs" BIGINT NOT NULL DEFAULT 0,
    "last_dropped_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "online_scoring_settings_pkey" PRIMARY KEY ("agent_id"),
    CONSTRAINT "online_scoring_settings_sample_rate_check" CHECK ("sample_rate" >= 0 AND "sample_rate" <= 1),
    CONSTRAINT "online_scoring_settings_max_queued_check" CHECK ("max_queued" >= 1)
);
CREATE INDEX "online_scoring_settings_workspace_id_idx" ON "online_scoring_settings"("workspace_id");
ALTER TABLE "online_scoring_settings" ADD CONSTRAINT "online_scoring_settings_agent_id_fkey"
  FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "online_scoring_settings" ADD CONSTRAINT "online_scoring_settings_workspace_id_fkey"
  FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Sampled runs waiting to be scored, each leased by one manager at a time. A run deleted (retention,
-- its thread or agent deleted) takes its entry with it.
CREATE TABLE "online_scoring_queue" (
    "agent_id" UUID NOT NULL,
    "run_id" TEXT NOT NULL,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    CONSTRAINT "online_scoring_queue_pkey" PRIMARY KEY ("agent_id", "run_id")
);
CREATE INDEX "online_scoring_queue_queued_at_idx" ON "online_scoring_queue"("queued_at");
ALTER TABLE "online_scoring_queue" ADD CONSTRAINT "online_scoring_queue_run_fkey"
  FOREIGN KEY ("agent_id", "run_id") REFERENCES "agent_runs"("agent_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One scorer's result for one run. Deleted with the run; the manager also keeps at most
-- ONLINE_SCORING_MAX_SCORES_PER_AGENT rows per agent, newest first.
CREATE TABLE "run_scores" (
    "agent_id" UUID NOT NULL,
    "run_id" TEXT NOT NULL,
    "scorer_name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    -- 0..1; NULL when the scorer could not grade (its judge failed, or the run lacks what it reads).
    "score" DOUBLE PRECISION,
    "reason" TEXT NOT NULL,
    "judge_tokens" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "run_scores_pkey" PRIMARY KEY ("agent_id", "run_id", "scorer_name"),
    CONSTRAINT "run_scores_score_check" CHECK ("score" >= 0 AND "score" <= 1)
);
CREATE INDEX "run_scores_agent_id_created_at_idx" ON "run_scores"("agent_id", "created_at");
ALTER TABLE "run_scores" ADD CONSTRAINT "run_scores_run_fkey"
  FOREIGN KEY ("agent_id", "run_id") REFERENCES "agent_runs"("agent_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Where in [0, 1) a run falls: the first 32 bits of the MD5 of "<agent id>:<run id>". The same run
-- always falls in the same place, so the decision never changes, whoever makes it; the manager's tests
-- compute the same number.
CREATE FUNCTION online_scoring_draw(p_agent_id uuid, p_run_id text) RETURNS double precision
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT ('x' || left(md5(p_agent_id::text || ':' || p_run_id), 8))::bit(32)::bigint::float8 / 4294967296.0
$$;

-- A run that ended: queued for scoring when its agent scores online, its source is sampled and its draw
-- falls under the sample rate; counted as dropped when the agent already has max_queued waiting. The
-- count stops at the cap, so a full queue costs the same as a nearly full one (read committed: runs
-- ending at once may pass the cap by one each, as with webhook deliveries). The settings row is the
-- run's agent's: an engine role, which RLS keeps to its own agent's runs, queues nothing for another.
CREATE FUNCTION online_scoring_run_ended() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
  settings record;
BEGIN
  SELECT s.sample_rate, s.max_queued INTO settings FROM public.online_scoring_settings s
  WHERE s.agent_id = NEW.agent_id AND s.enabled AND NEW.source::text = ANY (s.sources);
  IF NOT FOUND OR public.online_scoring_draw(NEW.agent_id, NEW.id) >= settings.sample_rate THEN
    RETURN NULL;
  END IF;
  IF (SELECT count(*) FROM (
        SELECT 1 FROM public.online_scoring_queue q WHERE q.agent_id = NEW.agent_id LIMIT settings.max_queued
      ) waiting) >= settings.max_queued THEN
    UPDATE public.online_scoring_settings
    SET dropped_runs = dropped_runs + 1, last_dropped_at = now()
    WHERE agent_id = NEW.agent_id;
  ELSE
    INSERT INTO public.online_scoring_queue (agent_id, run_id) VALUES (NEW.agent_id, NEW.id)
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION online_scoring_run_ended() FROM PUBLIC;
-- Succeeded and failed runs: a cancelled run was abandoned by its caller, and interrupted or
-- input_required ones have not ended. Experiment runs are graded by their experiment.
CREATE TRIGGER "agent_runs_online_scoring" AFTER UPDATE OF "status" ON "agent_runs"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('succeeded', 'failed')
    AND NEW.source::text <> 'experiment')
  EXECUTE FUNCTION online_scoring_run_ended();
