-- Whether a run of the same thread was queued behind this one while it was pending or running: only
-- then does its end wake the agent's queues. Without it every run's end woke them, and a pool serving
-- many agents paid a claim query per run for nothing (benchmark 9).
ALTER TABLE "agent_runs" ADD COLUMN "queue_waiters" BOOLEAN NOT NULL DEFAULT false;
