-- Outgoing webhooks (issue 35): a workspace subscribes URLs to events, and each event becomes one
-- durable delivery per subscribed endpoint, which the managers' delivery workers send (Standard
-- Webhooks signatures) and retry. Run and interrupt events are produced here, by triggers on the
-- tables the engines write, so that every engine replica and pool produces them in the same
-- transaction as the change itself, and no engine role can read an endpoint or its secret.

-- The code of a run's RUN_ERROR (BUDGET_EXCEEDED, GUARDRAIL_BLOCKED…), stored by the engine with the
-- run's end: the precise signal of a run refused by a budget.
ALTER TABLE "agent_runs" ADD COLUMN "error_code" TEXT;

CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "event_types" TEXT[] NOT NULL,
    -- whsec_…, sealed with SECRETS_KEY; the previous one stays valid (both sign) until it expires.
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    -- Conversation content (a failed run's error text, a succeeded run's reply, an interrupt's tool arguments) only when set.
    "include_content" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    -- Events not queued because the endpoint already had webhook_max_pending() undelivered ones. A
    -- bigint: an overflow would fail the engine's run update that the event came from.
    "dropped_events" BIGINT NOT NULL DEFAULT 0,
    "last_dropped_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_endpoints_workspace_id_created_at_id_idx" ON "webhook_endpoints"("workspace_id", "created_at", "id");
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "endpoint_id" UUID NOT NULL,
    -- The Standard Webhooks message id (webhook-id): one per event, the same on every retry and replay.
    "message_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    -- pending (waiting for its next attempt, or being sent under a lease), succeeded or failed.
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- Retries stop here: a day after the event (a replay starts a new day).
    "give_up_at" TIMESTAMPTZ(3) NOT NULL DEFAULT (CURRENT_TIMESTAMP + interval '1 day'),
    -- The manager replica sending it, and until when: a lease that ran out (a killed manager) is claimed again.
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_latency_ms" INTEGER,
    "last_error" TEXT,
    "replay_of" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'))
);
-- An endpoint's delivery log, newest first, and its retention.
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");
-- The workers' queue: only what is still to send.
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" = 'pending';
-- An endpoint's undelivered deliveries, counted (up to the cap) before each one is queued.
CREATE INDEX "webhook_deliveries_endpoint_pending_idx" ON "webhook_deliveries"("endpoint_id") WHERE "status" = 'pending';
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_delivery_attempts" (
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "error" TEXT,
    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("delivery_id", "attempt")
);
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The most undelivered (pending) deliveries an endpoint holds. A tenant's engine ends runs as fast as it
-- likes, and a receiver that is down keeps each event pending for a day: past this, new events for the
-- endpoint are dropped and counted (dropped_events) rather than stored. One place, for the triggers and
-- the manager's replays and test events alike.
CREATE FUNCTION webhook_max_pending() RETURNS integer
LANGUAGE sql IMMUTABLE
AS $$ SELECT 1000 $$;

-- Whether the endpoint is at the cap; the count stops there, so a full endpoint costs the same as a
-- nearly full one. Read committed: transactions queuing at once each see the others' rows only once
-- committed, so the cap can be passed by at most one delivery per transaction running beside it.
CREATE FUNCTION webhook_endpoint_full(p_endpoint_id uuid) RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
  SELECT count(*) >= public.webhook_max_pending() FROM (
    SELECT 1 FROM public.webhook_deliveries d
    WHERE d.endpoint_id = p_endpoint_id AND d.status = 'pending'
    LIMIT public.webhook_max_pending()) pending
$$;
REVOKE ALL ON FUNCTION webhook_endpoint_full(uuid) FROM PUBLIC;

-- One event, fanned out to every enabled endpoint of the workspace subscribed to its type, with one
-- message id; an endpoint at the cap counts it as dropped instead. `content` joins `data` only for
-- endpoints that opted in. Called by the triggers below (as the migration's owner: engine roles hold
-- no grant on these tables) and by the manager. Endpoints in id order: two events dropping for the
-- same endpoints lock their rows in the same order.
CREATE FUNCTION webhook_enqueue(p_workspace_id uuid, p_type text, p_data jsonb, p_content jsonb)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
  message_id text := 'msg_' || replace(gen_random_uuid()::text, '-', '');
  sent_at text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  endpoint record;
  queued integer := 0;
BEGIN
  FOR endpoint IN
    SELECT e.id, e.include_content FROM public.webhook_endpoints e
    WHERE e.workspace_id = p_workspace_id AND e.enabled AND p_type = ANY (e.event_types)
    ORDER BY e.id
  LOOP
    IF public.webhook_endpoint_full(endpoint.id) THEN
      UPDATE public.webhook_endpoints
      SET dropped_events = dropped_events + 1, last_dropped_at = now()
      WHERE id = endpoint.id;
    ELSE
      INSERT INTO public.webhook_deliveries (endpoint_id, message_id, event_type, payload)
      VALUES (endpoint.id, message_id, p_type, jsonb_build_object(
        'type', p_type,
        'timestamp', sent_at,
        'data', CASE WHEN endpoint.include_content AND p_content IS NOT NULL THEN p_data || p_content ELSE p_data END));
      queued := queued + 1;
    END IF;
  END LOOP;
  RETURN queued;
END
$$;
REVOKE ALL ON FUNCTION webhook_enqueue(uuid, text, jsonb, jsonb) FROM PUBLIC;

-- The workspace of an agent when it has an enabled endpoint, else NULL: most runs end in workspaces
-- without webhooks, and their triggers stop at this one indexed look-up.
CREATE FUNCTION webhook_listening_workspace(p_agent_id uuid) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
  SELECT a.workspace_id FROM public.agents a
  WHERE a.id = p_agent_id
    AND EXISTS (SELECT 1 FROM public.webhook_endpoints e WHERE e.workspace_id = a.workspace_id AND e.enabled)
$$;
REVOKE ALL ON FUNCTION webhook_listening_workspace(uuid) FROM PUBLIC;

-- The final assistant reply of a run that ends now, for endpoints that opted into content: the newest
-- assistant message with text that this transaction appended to the run's thread (the engine appends
-- the run's messages in the transaction that stores its end, just before it). Messages are told apart
-- as this transaction's by their created_at, which is the transaction's now() at the column's
-- precision; only the thread's newest 20 are looked at. NULL when the run appended none (an engine
-- that stored its end apart after a failure, a run that only called tools).
CREATE FUNCTION webhook_run_reply(p_agent_id uuid, p_thread_key text) RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, public, pg_temp
AS $$
  SELECT left(recent.message->>'content', 2000) FROM (
    SELECT m.seq, m.message, m.created_at FROM public.conversation_messages m
    JOIN public.conversation_threads t ON t.id = m.thread_id
    WHERE t.agent_id = p_agent_id AND t.external_key = p_thread_key
    ORDER BY m.seq DESC LIMIT 20) recent
  WHERE recent.created_at = now()::timestamptz(3) AND recent.message->>'role' = 'assistant'
    AND jsonb_typeof(recent.message->'content') = 'string' AND recent.message->>'content' <> ''
  ORDER BY recent.seq DESC LIMIT 1
$$;
REVOKE ALL ON FUNCTION webhook_run_reply(uuid, text) FROM PUBLIC;

-- run.succeeded / run.failed / run.cancelled when a run reaches that status, and budget.exceeded
-- besides run.failed for a run a budget refused. The workspace is the run's agent's: an engine role,
-- which RLS keeps to its own agent's rows, cannot produce an event for another workspace.
CREATE FUNCTION webhook_run_ended() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
  workspace uuid;
  data jsonb;
  content jsonb;
BEGIN
  workspace := public.webhook_listening_workspace(NEW.agent_id);
  IF workspace IS NULL THEN RETURN NULL; END IF;
  data := jsonb_build_object(
    'agent_id', NEW.agent_id, 'run_id', NEW.id, 'thread_id', NEW.thread_id, 'status', NEW.status::text,
    'source', NEW.source::text, 'error_code', NEW.error_code,
    'started_at', to_char(NEW.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'finished_at', to_char(NEW.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  content := jsonb_build_object('error', left(NEW.error, 500));
  -- The reply is read only when an endpoint will carry it: most do not opt into content.
  IF NEW.status = 'succeeded' AND EXISTS (
    SELECT 1 FROM public.webhook_endpoints e
    WHERE e.workspace_id = workspace AND e.enabled AND e.include_content AND 'run.succeeded' = ANY (e.event_types)
  ) THEN
    content := content || jsonb_build_object('reply', public.webhook_run_reply(NEW.agent_id, NEW.thread_key));
  END IF;
  PERFORM public.webhook_enqueue(workspace, 'run.' || NEW.status::text, data, content);
  IF NEW.status = 'failed' AND NEW.error_code = 'BUDGET_EXCEEDED' THEN
    PERFORM public.webhook_enqueue(workspace, 'budget.exceeded', data, content);
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION webhook_run_ended() FROM PUBLIC;
CREATE TRIGGER "agent_runs_webhooks" AFTER UPDATE OF "status" ON "agent_runs"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION webhook_run_ended();

-- interrupt.created: a run stopped for a human's answer. The tool's arguments are conversation
-- content, and are left out when larger than 16 KiB.
CREATE FUNCTION webhook_interrupt_created() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
  workspace uuid;
  client_thread text;
BEGIN
  workspace := public.webhook_listening_workspace(NEW.agent_id);
  IF workspace IS NULL THEN RETURN NULL; END IF;
  SELECT r.thread_id INTO client_thread FROM public.agent_runs r WHERE r.agent_id = NEW.agent_id AND r.id = NEW.run_id;
  PERFORM public.webhook_enqueue(workspace, 'interrupt.created',
    jsonb_build_object(
      'agent_id', NEW.agent_id, 'run_id', NEW.run_id, 'thread_id', client_thread, 'interrupt_id', NEW.id,
      'reason', NEW.reason, 'tool_name', NEW.tool_name,
      'expires_at', to_char(NEW.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    jsonb_build_object('arguments',
      CASE WHEN octet_length(NEW.arguments::text) <= 16384 THEN NEW.arguments END));
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION webhook_interrupt_created() FROM PUBLIC;
CREATE TRIGGER "thread_interrupts_webhooks" AFTER INSERT ON "thread_interrupts"
  FOR EACH ROW EXECUTE FUNCTION webhook_interrupt_created();
