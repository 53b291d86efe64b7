// Schedules (/agents/{id}/schedules): a cron expression read in an IANA time zone; each tick queues a
// background run of the agent (source `schedule`) as the schedule's owner, with `message` as its user
// message. The cron grammar is checked here by shape (five fields) and by the manager's cron library
// for meaning; the time zone by the runtime's own Intl database, which the scheduler uses too.
import { z } from 'zod';
import { CRON_EXPRESSION_MAX_LENGTH, SCHEDULE_MESSAGE_MAX_LENGTH, TIME_ZONE_MAX_LENGTH } from '../common/limits.js';
import { ZIsoDateTime, ZResourceName, ZUuid } from '../common/primitives.js';
import { RUN_STATUSES } from './agent-run.js';

export const SCHEDULE_THREAD_MODES = ['new', 'fixed'] as const;
export const SCHEDULE_CATCH_UP_POLICIES = ['skip', 'once'] as const;
export const SCHEDULE_FIRE_OUTCOMES = ['queued', 'skipped'] as const;
/** How many upcoming ticks a schedule's response lists. */
export const SCHEDULE_NEXT_FIRE_TIMES = 5;

const FIVE_FIELDS = /^\S+(\s+\S+){4}$/;
// Area/Location names (and UTC): an offset such as "+01:00", which Intl also takes, is not a zone
// and has no daylight saving time to honour.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_]*(?:[/+-][A-Za-z0-9_]+)*$/;

/** Whether the runtime's time zone database knows `name`. */
export function isKnownTimeZone(name: string): boolean {
  if (!ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const ZCronExpression = z
  .string()
  .trim()
  .max(CRON_EXPRESSION_MAX_LENGTH)
  .regex(FIVE_FIELDS, {
    error: 'Must be five fields (minute hour day-of-month month day-of-week): seconds are not supported',
  })
  .meta({ description: 'Five-field cron, minute precision, read in `timezone`', examples: ['0 9 * * 1-5'] });

export const ZTimeZone = z
  .string()
  .max(TIME_ZONE_MAX_LENGTH)
  .refine(isKnownTimeZone, { error: 'Must be an IANA time zone name, such as Europe/Paris or UTC' })
  .meta({ description: 'IANA time zone the cron expression is read in', examples: ['Europe/Paris'] });

export const ZScheduleCreate = z
  .strictObject({
    name: ZResourceName,
    cron: ZCronExpression,
    timezone: ZTimeZone,
    message: z
      .string()
      .trim()
      .min(1)
      .max(SCHEDULE_MESSAGE_MAX_LENGTH)
      .meta({ description: 'The user message each scheduled run starts with' }),
    enabled: z.boolean().default(true),
    thread: z.enum(SCHEDULE_THREAD_MODES).default('new').meta({
      description:
        'new: every tick starts a thread of its own; fixed: every tick continues the one thread of the schedule',
    }),
    catch_up: z.enum(SCHEDULE_CATCH_UP_POLICIES).default('skip').meta({
      description:
        'After downtime: skip fires nothing for the ticks missed and resumes at the next one; once fires one run for them all',
    }),
  })
  .meta({
    id: 'ScheduleCreate',
    examples: [
      { name: 'Morning digest', cron: '0 8 * * 1-5', timezone: 'Europe/Paris', message: 'Summarise the news' },
    ],
  });
export type TScheduleCreate = z.infer<typeof ZScheduleCreate>;
/** PATCH replaces the whole schedule, as for every resource. */
export const ZScheduleUpdate = ZScheduleCreate.meta({ id: 'ScheduleUpdate' });
export type TScheduleUpdate = TScheduleCreate;

export const ZScheduleParams = z.strictObject({ id: ZUuid, schedule_id: ZUuid });

export const ZScheduleFire = z
  .strictObject({
    tick: ZIsoDateTime.meta({ description: 'The time the tick was due' }),
    outcome: z.enum(SCHEDULE_FIRE_OUTCOMES),
    reason: z.string().nullable().meta({ description: 'Why no run was queued (outcome skipped), else null' }),
    run_id: z.string().nullable().meta({ description: 'The run it queued (GET /agents/{id}/runs lists it)' }),
    run_status: z.enum(RUN_STATUSES).nullable().meta({
      description: "That run's status now; null when no run was queued, or when the run's record is gone (retention)",
    }),
    fired_at: ZIsoDateTime,
  })
  .meta({ id: 'ScheduleFire' });
export type TScheduleFire = z.infer<typeof ZScheduleFire>;

export const ZSchedule = z
  .strictObject({
    id: ZUuid,
    agent_id: ZUuid,
    owner_id: ZUuid.meta({
      description: 'The member whose runs these are (who created or last replaced the schedule)',
    }),
    name: z.string(),
    cron: z.string(),
    timezone: z.string(),
    message: z.string(),
    enabled: z.boolean(),
    thread: z.enum(SCHEDULE_THREAD_MODES),
    catch_up: z.enum(SCHEDULE_CATCH_UP_POLICIES),
    next_fire_times: z
      .array(ZIsoDateTime)
      .max(SCHEDULE_NEXT_FIRE_TIMES)
      .meta({
        description: `The next ${SCHEDULE_NEXT_FIRE_TIMES} ticks (UTC), empty while disabled`,
      }),
    consecutive_failures: z.number().int().min(0),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: 'Why the scheduler disabled the schedule; cleared when it is enabled again' }),
    last_fire: ZScheduleFire.nullable(),
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
  })
  .meta({ id: 'Schedule' });
export type TSchedule = z.infer<typeof ZSchedule>;
