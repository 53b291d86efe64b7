// The agent's timetable: its schedules, a form to add or replace one, and for each its switch and delete.
// Members and above write; a viewer reads.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { problemOf } from '../../api/api-problem';
import { useRole } from '../../session/use-me';
import { EmptyState } from '../../ui/empty-state';
import { ProblemAlert } from '../../ui/problem-alert';
import { useRowWrite } from '../../ui/use-row-write';
import { useAgentOfPage } from '../agent-of-page';
import {
  bodyOf,
  createSchedule,
  deleteSchedule,
  listSchedules,
  type Schedule,
  type ScheduleBody,
  scheduleKeys,
  updateSchedule,
} from './schedule-api';
import { ScheduleForm } from './schedule-form';
import { ScheduleTable } from './schedule-table';

/** What the form is open for: a new schedule, or replacing one. */
type Editing = { kind: 'new' } | { kind: 'edit'; schedule: Schedule } | undefined;

export function SchedulesTab() {
  const agent = useAgentOfPage();
  const { canWrite } = useRole();
  const queryClient = useQueryClient();
  const schedules = useQuery({ queryKey: scheduleKeys.all(agent.id), queryFn: () => listSchedules(agent.id) });
  const [editing, setEditing] = useState<Editing>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: scheduleKeys.all(agent.id) });
  const { busy, status, setStatus, problem, write } = useRowWrite(refresh);
  // The form's own problems stay on the form, so its submit rethrows.
  const save = async (body: ScheduleBody) => {
    setStatus(undefined);
    if (editing?.kind === 'edit') await updateSchedule(agent.id, editing.schedule.id, body);
    else await createSchedule(agent.id, body);
    setEditing(undefined);
    setStatus(`Saved schedule ${body.name}.`);
    await refresh();
  };

  const items = schedules.data?.items;
  return (
    <section aria-labelledby="schedules-heading">
      <h2 id="schedules-heading">Schedules</h2>
      <p>
        Each tick of a schedule's cron, read in its time zone, starts a background run of this agent as the member who
        last saved it. Its runs show in the Runs tab.
      </p>
      {!canWrite && <p className="note">You are a viewer in this workspace: you can read, not change.</p>}
      <ProblemAlert problem={problemOf(schedules.error) ?? problem} />
      {status && <p role="status">{status}</p>}
      {!items && !schedules.error && <p aria-busy="true">Loading…</p>}
      {items?.length === 0 && (
        <EmptyState title="No schedules yet">
          <p>{canWrite ? 'Add one to run this agent on a timetable.' : 'A member can add one.'}</p>
        </EmptyState>
      )}
      {items && items.length > 0 && (
        <ScheduleTable
          schedules={items}
          actions={{
            canWrite,
            busy: busy || editing !== undefined,
            onToggle: (schedule) =>
              void write(`${schedule.enabled ? 'Disabled' : 'Enabled'} schedule ${schedule.name}.`, () =>
                updateSchedule(agent.id, schedule.id, { ...bodyOf(schedule), enabled: !schedule.enabled }),
              ),
            onEdit: (schedule) => setEditing({ kind: 'edit', schedule }),
            onDelete: (schedule) =>
              void write(`Deleted schedule ${schedule.name}.`, () => deleteSchedule(agent.id, schedule.id)),
          }}
        />
      )}
      {canWrite && editing === undefined && (
        <button type="button" onClick={() => setEditing({ kind: 'new' })}>
          New schedule
        </button>
      )}
      {editing && (
        <>
          <h3>{editing.kind === 'new' ? 'New schedule' : `Edit ${editing.schedule.name}`}</h3>
          {editing.kind === 'edit' && <p className="note">Saving makes you its owner: its runs then go out as you.</p>}
          <ScheduleForm
            key={editing.kind === 'new' ? 'new' : editing.schedule.id}
            {...(editing.kind === 'edit' ? { schedule: bodyOf(editing.schedule) } : {})}
            submitLabel={editing.kind === 'new' ? 'Create schedule' : 'Save schedule'}
            onSubmit={save}
            onCancel={() => setEditing(undefined)}
          />
        </>
      )}
    </section>
  );
}
