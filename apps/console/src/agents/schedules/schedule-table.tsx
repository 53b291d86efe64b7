// The agent's schedules, a row each: when it fires (next ticks in the schedule's time zone and the
// viewer's), how its last tick went, and, for members, its switch, edit and delete.
import { Link } from 'react-router';
import { ConfirmDelete } from '../../ui/confirm-delete';
import { formatInZone, viewerTimeZone } from './fire-times';
import type { Schedule } from './schedule-api';

export type ScheduleActions = {
  canWrite: boolean;
  /** A write under way: the row's controls wait for it. */
  busy: boolean;
  onToggle: (schedule: Schedule) => void;
  onEdit: (schedule: Schedule) => void;
  onDelete: (schedule: Schedule) => void;
};

function FireTime({ iso, timeZone }: { iso: string; timeZone: string }) {
  const local = viewerTimeZone();
  return (
    <time dateTime={iso}>
      {formatInZone(iso, timeZone)}
      <span className="note">
        {local === timeZone ? ' (your time too)' : ` (your time: ${formatInZone(iso, local)})`}
      </span>
    </time>
  );
}

function NextFires({ schedule }: { schedule: Schedule }) {
  if (schedule.next_fire_times.length === 0) return <span className="note">None while disabled</span>;
  return (
    <ol aria-label={`Next fire times of ${schedule.name}`} className="fire-times">
      {schedule.next_fire_times.map((iso) => (
        <li key={iso}>
          <FireTime iso={iso} timeZone={schedule.timezone} />
        </li>
      ))}
    </ol>
  );
}

function LastFire({ schedule }: { schedule: Schedule }) {
  const fire = schedule.last_fire;
  if (!fire) return <span className="note">Not fired yet</span>;
  return (
    <>
      <FireTime iso={fire.tick} timeZone={schedule.timezone} />
      <br />
      {fire.run_id === null ? (
        <>Skipped: {fire.reason}</>
      ) : (
        <>
          Run{' '}
          <Link to={`/agents/${schedule.agent_id}/runs/${encodeURIComponent(fire.run_id)}`}>
            {fire.run_status ?? 'no longer kept'}
          </Link>
        </>
      )}
    </>
  );
}

function EnabledCell({ schedule, actions }: { schedule: Schedule; actions: ScheduleActions }) {
  return (
    <>
      <input
        type="checkbox"
        aria-label={`Enabled: ${schedule.name}`}
        checked={schedule.enabled}
        disabled={!actions.canWrite || actions.busy}
        onChange={() => actions.onToggle(schedule)}
      />
      {schedule.disabled_reason && <p className="note">{schedule.disabled_reason}</p>}
    </>
  );
}

export function ScheduleTable({ schedules, actions }: { schedules: Schedule[]; actions: ScheduleActions }) {
  return (
    <table>
      <caption className="visually-hidden">Schedules</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Cron</th>
          <th scope="col">Time zone</th>
          <th scope="col">Enabled</th>
          <th scope="col">Next fire times</th>
          <th scope="col">Last fire</th>
          <th scope="col">Failures in a row</th>
          {actions.canWrite && (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {schedules.map((schedule) => (
          <tr key={schedule.id}>
            <th scope="row">{schedule.name}</th>
            <td>
              <code className="cron">{schedule.cron}</code>
            </td>
            <td>{schedule.timezone}</td>
            <td>
              <EnabledCell schedule={schedule} actions={actions} />
            </td>
            <td>
              <NextFires schedule={schedule} />
            </td>
            <td>
              <LastFire schedule={schedule} />
            </td>
            <td>{schedule.consecutive_failures}</td>
            {actions.canWrite && (
              <td>
                <div className="actions">
                  <button type="button" disabled={actions.busy} onClick={() => actions.onEdit(schedule)}>
                    Edit<span className="visually-hidden"> {schedule.name}</span>
                  </button>
                  <ConfirmDelete
                    what={`schedule ${schedule.name}`}
                    disabled={actions.busy}
                    onConfirm={() => actions.onDelete(schedule)}
                  />
                </div>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
