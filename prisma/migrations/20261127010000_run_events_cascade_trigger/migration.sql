-- A run's events still go with their run, but a trigger on agent_runs takes them instead of a foreign
-- key on run_events. The key's check ran for every stored event: a lookup of the run and a lock on its
-- row, per event. Worse, PostgreSQL plans that lookup once per connection and keeps the plan: on a
-- fresh database, before any ANALYZE, the tiny table made agent_runs_agent_id_created_at_idx look as
-- cheap as the primary key, and the kept plan then read every run of the agent for every event, so a
-- run's end cost more with each run before it (the engine's runs/s halved within two minutes).
-- Events are only ever written by statements that take their run from its own row (the append's and
-- the end's UPDATE of agent_runs ... RETURNING, the lease sweep's and the cancel's), so the key
-- guarded no write that could miss its run.
ALTER TABLE "run_events" DROP CONSTRAINT "run_events_run_fkey";

-- Runs deleted by the engine (retention, a deleted thread) or by a cascade from their agent: one
-- DELETE per statement, joined on run_events' primary key. It runs as whoever deletes the runs, so an
-- engine's row-level security applies to it as to the runs; the search path is the one the
-- migration ran with, whatever the deleting session's.
CREATE FUNCTION delete_events_of_deleted_runs() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
BEGIN
  DELETE FROM run_events e USING deleted_runs r WHERE e.agent_id = r.agent_id AND e.run_id = r.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER agent_runs_delete_events AFTER DELETE ON "agent_runs"
  REFERENCING OLD TABLE AS deleted_runs
  FOR EACH STATEMENT EXECUTE FUNCTION delete_events_of_deleted_runs();
