-- Background runs, cancel and the double-texting policies (issue 17). A cancel is asked for on the
-- run's row and carried out by the replica running it; the mode says how the run is to end:
-- `cancel` (cancelled), `interrupt` (interrupted, its messages kept) or `rollback` (cancelled, its
-- messages discarded). Pending runs wait in a thread's queue in queued_at order: microseconds and the
-- statement's own clock, so two runs enqueued in the same millisecond keep their order.
ALTER TABLE "agent_runs" ADD COLUMN "cancel_mode" TEXT;
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_cancel_mode_check"
  CHECK ("cancel_mode" IN ('cancel', 'interrupt', 'rollback'));
ALTER TABLE "agent_runs" ADD COLUMN "queued_at" TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp();
CREATE INDEX "agent_runs_pending_queue_idx" ON "agent_runs"("agent_id", "queued_at") WHERE "status" = 'pending';
