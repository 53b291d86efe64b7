-- Schedules (issue 35): an agent's cron timetable, each tick of which queues a background run as the
-- schedule's owner. Every manager replica runs a scheduler; a tick is claimed with the schedule's row
-- lock (FOR UPDATE SKIP LOCKED) and recorded in schedule_fires, whose primary key (schedule, tick)
-- makes a second run for one tick impossible, across replicas and restarts alike. Engines take no part:
-- they see an ordinary pending run, so no engine role is granted anything here.

-- What the scheduler writes into agent_runs.source. Not used in this transaction (PostgreSQL forbids
-- using a value added in the same one).
ALTER TYPE "RunSource" ADD VALUE 'schedule';

CREATE TABLE "agent_schedules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    -- The member who created it (or last replaced it): its runs are theirs, with the manager's issuer.
    "owner_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    -- Five fields, minute precision, read in "timezone" (an IANA name).
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    -- 'new': each tick starts a thread of its own; 'fixed': every tick continues the schedule's thread.
    "thread" TEXT NOT NULL,
    -- 'skip' or 'once': what ticks missed while no scheduler ran (downtime) turn into.
    "catch_up" TEXT NOT NULL DEFAULT 'skip',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    -- The tick the scheduler fires next; NULL while the schedule is disabled.
    "next_fire_at" TIMESTAMPTZ(3),
    -- The run the last fired tick queued: no tick queues another while it is pending or running.
    "last_run_id" TEXT,
    -- Runs in a row that ended failed; past the manager's limit the schedule disables itself.
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    -- Why the scheduler disabled it, shown until someone enables it again.
    "disabled_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_schedules_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "agent_schedules_thread_check" CHECK ("thread" IN ('new', 'fixed')),
    CONSTRAINT "agent_schedules_catch_up_check" CHECK ("catch_up" IN ('skip', 'once'))
);

CREATE INDEX "agent_schedules_agent_id_created_at_id_idx" ON "agent_schedules"("agent_id", "created_at", "id");
CREATE INDEX "agent_schedules_workspace_id_idx" ON "agent_schedules"("workspace_id");
CREATE INDEX "agent_schedules_owner_id_idx" ON "agent_schedules"("owner_id");
-- The scheduler's due-schedule scan.
CREATE INDEX "agent_schedules_next_fire_at_idx" ON "agent_schedules"("next_fire_at");

ALTER TABLE "agent_schedules" ADD CONSTRAINT "agent_schedules_workspace_id_fkey"
  FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "agent_schedules" ADD CONSTRAINT "agent_schedules_agent_id_fkey"
  FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "agent_schedules" ADD CONSTRAINT "agent_schedules_owner_id_fkey"
  FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One row per tick the scheduler handled: the run it queued, or why it queued none. The primary key is
-- the exactly-once guarantee. Kept to the newest few per schedule by the scheduler itself.
CREATE TABLE "schedule_fires" (
    "schedule_id" UUID NOT NULL,
    "tick" TIMESTAMPTZ(3) NOT NULL,
    "run_id" TEXT,
    -- 'queued' (run_id names the run) or 'skipped' (reason says why).
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "fired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedule_fires_pkey" PRIMARY KEY ("schedule_id", "tick"),
    CONSTRAINT "schedule_fires_outcome_check" CHECK ("outcome" IN ('queued', 'skipped'))
);

ALTER TABLE "schedule_fires" ADD CONSTRAINT "schedule_fires_schedule_id_fkey"
  FOREIGN KEY ("schedule_id") REFERENCES "agent_schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
