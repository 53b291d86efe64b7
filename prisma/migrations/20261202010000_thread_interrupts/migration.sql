-- Tool approvals as AG-UI interrupts (issue 31): a run that stops for a human ends `input_required`,
-- and its open interrupts are kept with the thread, so any replica or pool can resume it, after a
-- restart too. Deleting the thread (or its agent) deletes them.
ALTER TYPE "RunStatus" ADD VALUE 'input_required';

CREATE TABLE "thread_interrupts" (
    "agent_id" UUID NOT NULL,
    -- The AG-UI Interrupt.id: chosen by the engine, what RunAgentInput.resume answers.
    "id" TEXT NOT NULL,
    "thread_id" UUID NOT NULL,
    -- The run that stopped for it.
    "run_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    -- The tool call waiting for approval: its id, the tool's engine name and the model's arguments.
    "tool_call_id" TEXT,
    "tool_name" TEXT,
    "arguments" JSONB,
    -- The AG-UI Interrupt exactly as the run's RUN_FINISHED carried it, for GET /agent/threads/{id}.
    "interrupt" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- Set once, by the one statement that claims it for the run that resumes it, with the answer.
    "answered_at" TIMESTAMPTZ(3),
    "answered_by_run" TEXT,
    "answer" JSONB,

    CONSTRAINT "thread_interrupts_pkey" PRIMARY KEY ("agent_id", "id"),
    CONSTRAINT "thread_interrupts_thread_id_agent_id_fkey" FOREIGN KEY ("thread_id", "agent_id")
      REFERENCES "conversation_threads"("id", "agent_id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- A thread's interrupts, and those a resuming run claimed.
CREATE INDEX "thread_interrupts_agent_id_thread_id_idx" ON "thread_interrupts"("agent_id", "thread_id");
CREATE INDEX "thread_interrupts_agent_id_answered_by_run_idx" ON "thread_interrupts"("agent_id", "answered_by_run");

-- The engine owns its agent's interrupts, as it owns its threads (see 20261122050000_engine_roles).
ALTER TABLE "thread_interrupts" ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_owns_its_interrupts ON "thread_interrupts" FOR ALL TO agentplane_engine
  USING ("agent_id" = engine_agent_id()) WITH CHECK ("agent_id" = engine_agent_id());
GRANT SELECT, INSERT, UPDATE ON "thread_interrupts" TO agentplane_engine;
