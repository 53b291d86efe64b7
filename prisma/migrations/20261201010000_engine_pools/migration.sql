-- Pool engines: one process serving many agents. A pool logs in as its own role (agentplane_pool_<name>,
-- made by the manager), NOINHERIT and granted the roles of the agents placed on it: it holds no
-- privilege itself, and each of an agent's statements runs in a transaction that first does
-- SET LOCAL ROLE to that agent's role, so the row-level security keyed on current_user holds statement
-- by statement. A dedicated engine logs in as its agent's role, a pool of one.

-- The agents the logged-in engine serves, with their config version and channel names: for a pool,
-- the agents whose roles it was granted; for a dedicated engine, its own. Keyed on session_user, which
-- SET ROLE leaves alone, so it answers for the login. SECURITY DEFINER because the pool role reads no
-- table; it learns no more than which agents it may serve, their channels, and whether runs wait for
-- an engine (`has_work`: a pending run, or a running one whose lease ran out), so that a pool loads an
-- agent with work no request has named yet (after a restart, or a replica's death).
CREATE FUNCTION engine_placements()
RETURNS TABLE (agent_id uuid, config_version bigint, config_channel text, run_channel text, has_work boolean)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
  WITH login AS (
    SELECT oid, rolname, rolsuper FROM pg_catalog.pg_roles WHERE rolname = session_user
  ), served AS (
    SELECT r.rolname FROM pg_catalog.pg_auth_members m
      JOIN pg_catalog.pg_roles r ON r.oid = m.roleid
      JOIN login ON m.member = login.oid
    WHERE NOT login.rolsuper
    UNION
    SELECT rolname FROM login WHERE NOT rolsuper
  ), agents AS (
    SELECT substr(rolname, length('agentplane_engine_') + 1)::uuid AS agent_id FROM served
    WHERE rolname ~ '^agentplane_engine_[0-9a-f]{32}$'
  )
  SELECT a.agent_id, c.version, ch.config_channel, ch.run_channel,
    EXISTS (SELECT 1 FROM public.agent_runs r WHERE r.agent_id = a.agent_id AND r.status = 'pending')
      OR EXISTS (SELECT 1 FROM public.agent_runs r
                 WHERE r.agent_id = a.agent_id AND r.status = 'running' AND r.lease_expires_at < now())
  FROM agents a
    JOIN public.engine_channels ch ON ch.agent_id = a.agent_id
    LEFT JOIN public.engine_configs c ON c.agent_id = a.agent_id
$$;
REVOKE ALL ON FUNCTION engine_placements() FROM PUBLIC;

-- What has_work looks for among an agent's running runs, without reading its finished ones.
CREATE INDEX "agent_runs_running_lease_idx" ON "agent_runs"("agent_id", "lease_expires_at") WHERE "status" = 'running';
GRANT EXECUTE ON FUNCTION engine_placements() TO agentplane_engine;

-- Pool roles get EXECUTE (and CONNECT) granted to themselves when the manager makes them: being
-- NOINHERIT, they would not use a group's privileges.
