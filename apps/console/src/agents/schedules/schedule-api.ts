// An agent's schedules over the API, with the query key they are cached under.
import { api, expectOk, expectPage, type Schemas } from '../../api/api-client';
import { AGENTS_KEY } from '../agent-api';

export type Schedule = Schemas['Schedule'];
export type ScheduleBody = Schemas['ScheduleCreate'];

// The API's cap per agent (MAX_SCHEDULES_PER_AGENT) is 20 by default: one page of this shows them all.
const LIST_LIMIT = '100';

export const scheduleKeys = { all: (agentId: string) => [AGENTS_KEY, agentId, 'schedules'] as const };

const pathOf = (agentId: string, scheduleId: string) => ({ path: { id: agentId, schedule_id: scheduleId } });

export function listSchedules(agentId: string) {
  return expectPage(
    api.GET('/api/v1/agents/{id}/schedules', {
      params: { path: { id: agentId }, query: { limit: LIST_LIMIT, offset: '0' } },
    }),
  );
}

export function createSchedule(agentId: string, body: ScheduleBody) {
  return expectOk(api.POST('/api/v1/agents/{id}/schedules', { params: { path: { id: agentId } }, body }));
}

export function updateSchedule(agentId: string, scheduleId: string, body: ScheduleBody) {
  return expectOk(
    api.PATCH('/api/v1/agents/{id}/schedules/{schedule_id}', { params: pathOf(agentId, scheduleId), body }),
  );
}

export function deleteSchedule(agentId: string, scheduleId: string) {
  return expectOk(api.DELETE('/api/v1/agents/{id}/schedules/{schedule_id}', { params: pathOf(agentId, scheduleId) }));
}

/** What a PATCH sends to keep a schedule as it is: the whole body, since PATCH replaces it. */
export function bodyOf(schedule: Schedule): ScheduleBody {
  const { name, cron, timezone, message, enabled, thread, catch_up } = schedule;
  return { name, cron, timezone, message, enabled, thread, catch_up };
}
