-- A pool loads an agent with work no request has named (engine_placements' has_work) only when runs
-- wait for it. A queued channel message waits as well: one whose retry comes due while its agent is
-- unloaded (after a restart, an idle unload, or a replica's death) must get the agent loaded, or its
-- reply waits for the next request to that agent, which may never come. So has_work is also true for
-- an inbound message that is pending and due, or processing under a lease that ran out: exactly what
-- the worker's claim takes. Both look through inbound_messages_agent_id_status_next_attempt_at_idx,
-- reading only the agent's pending and processing rows, never its finished ones.
-- CREATE OR REPLACE keeps the function's owner, SECURITY DEFINER and grants (EXECUTE to the engine and
-- pool roles, none to PUBLIC).
CREATE OR REPLACE FUNCTION engine_placements()
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
      OR EXISTS (SELECT 1 FROM public.inbound_messages m
                 WHERE m.agent_id = a.agent_id AND m.status = 'pending' AND m.next_attempt_at <= now())
      OR EXISTS (SELECT 1 FROM public.inbound_messages m
                 WHERE m.agent_id = a.agent_id AND m.status = 'processing' AND m.locked_until < now())
  FROM agents a
    JOIN public.engine_channels ch ON ch.agent_id = a.agent_id
    LEFT JOIN public.engine_configs c ON c.agent_id = a.agent_id
$$;
