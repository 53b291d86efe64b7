-- Durable runs (issue 17): every run an engine executes is a row, and its AG-UI events a log, so a
-- client can rejoin a stream on any replica, runs can go on in the background, and one run per thread
-- is active at a time across replicas.
CREATE TYPE "RunStatus" AS ENUM ('pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted');
CREATE TYPE "RunSource" AS ENUM ('stream', 'background', 'whatsapp');

CREATE TABLE "agent_runs" (
    -- The AG-UI runId: chosen by the client, unique per agent.
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    -- The client's AG-UI threadId, and the stored thread's scoped key (conversation_threads.external_key).
    "thread_id" TEXT NOT NULL,
    "thread_key" TEXT NOT NULL,
    -- The token's issuer and subject; NULL where no token is involved (auth disabled, messaging channels).
    "issuer" TEXT,
    "subject" TEXT,
    "source" "RunSource" NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'pending',
    -- The RunAgentInput, kept until the run starts (a pending background or enqueued run needs it).
    "input" JSONB,
    -- The engine replica running it, and until when its lease holds; an expired lease means the engine is lost.
    "owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "cancel_requested_at" TIMESTAMPTZ(3),
    -- The seq of its newest stored event.
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "usage" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "agent_runs_pkey" PRIMARY KEY ("agent_id", "id"),
    CONSTRAINT "agent_runs_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- A thread's runs, newest first, and the queue of its pending runs.
CREATE INDEX "agent_runs_agent_id_thread_key_created_at_idx" ON "agent_runs"("agent_id", "thread_key", "created_at");
-- The manager's list of an agent's recent runs, and retention.
CREATE INDEX "agent_runs_agent_id_created_at_idx" ON "agent_runs"("agent_id", "created_at");
-- Exactly one running run per thread, whichever replica starts it.
CREATE UNIQUE INDEX "agent_runs_one_running_per_thread" ON "agent_runs"("agent_id", "thread_key") WHERE "status" = 'running';

-- A run's AG-UI events in order, each the exact `data:` payload sent on the stream, so a replay sends
-- the bytes a live client saw. The SSE id of an event is "<run id>:<seq>".
CREATE TABLE "run_events" (
    "agent_id" UUID NOT NULL,
    "run_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_events_pkey" PRIMARY KEY ("agent_id", "run_id", "seq"),
    CONSTRAINT "run_events_run_fkey" FOREIGN KEY ("agent_id", "run_id") REFERENCES "agent_runs"("agent_id", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Threads can be listed by their owner and read back with their last state.
ALTER TABLE "conversation_threads" ADD COLUMN "thread_id" TEXT;
ALTER TABLE "conversation_threads" ADD COLUMN "issuer" TEXT;
ALTER TABLE "conversation_threads" ADD COLUMN "subject" TEXT;
ALTER TABLE "conversation_threads" ADD COLUMN "state" JSONB;
CREATE INDEX "conversation_threads_agent_id_issuer_subject_updated_at_idx"
  ON "conversation_threads"("agent_id", "issuer", "subject", "updated_at");

-- The engine owns its agent's runs and events, as it owns its threads (see 20261122050000_engine_roles).
ALTER TABLE "agent_runs" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_owns_its_runs ON "agent_runs" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
GRANT SELECT, INSERT, UPDATE, DELETE ON "agent_runs" TO agentplane_engine;

ALTER TABLE "run_events" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_owns_its_run_events ON "run_events" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
GRANT SELECT, INSERT, DELETE ON "run_events" TO agentplane_engine;

-- DELETE /agent/threads/{id} removes a thread and its messages.
GRANT DELETE ON "conversation_threads", "conversation_messages" TO agentplane_engine;
