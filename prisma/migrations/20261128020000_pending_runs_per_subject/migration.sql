-- The cap on waiting runs per caller (issue 28) counts an agent's pending runs of one issuer and
-- subject inside every enqueue: this index keeps that count to the caller's own runs. An engine
-- without auth stores none, and all its callers count as one ('').
CREATE INDEX "agent_runs_pending_subject_idx" ON "agent_runs"("agent_id", (coalesce("issuer", '')), (coalesce("subject", '')))
  WHERE "status" = 'pending';
