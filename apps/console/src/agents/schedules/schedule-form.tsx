// Create or replace a schedule, checked with the contracts' ZScheduleCreate first; what only the server
// can tell (a cron that never fires) comes back as a problem whose errors show on their fields.
import { isKnownTimeZone, ZScheduleCreate } from '@agentplane/contracts';
import { useId } from 'react';
import { errorAt, Field } from '../../ui/field';
import { ProblemAlert } from '../../ui/problem-alert';
import { useApiForm } from '../../ui/use-api-form';
import { knownTimeZones, viewerTimeZone } from './fire-times';
import type { ScheduleBody } from './schedule-api';

function blankSchedule(): ScheduleBody {
  const zone = viewerTimeZone();
  return {
    name: '',
    cron: '0 9 * * 1-5',
    timezone: isKnownTimeZone(zone) ? zone : 'UTC',
    message: '',
    enabled: true,
    thread: 'new',
    catch_up: 'skip',
  };
}

export function ScheduleForm(props: {
  schedule?: ScheduleBody;
  submitLabel: string;
  onSubmit: (body: ScheduleBody) => Promise<unknown>;
  onCancel: () => void;
}) {
  const editor = useApiForm({
    schema: ZScheduleCreate,
    defaultValues: props.schedule ?? blankSchedule(),
    submit: props.onSubmit,
  });
  const zonesId = useId();
  const enabledId = useId();
  const { register, formState } = editor.form;
  const { errors, isSubmitting } = formState;
  return (
    <form onSubmit={(event) => void editor.onSubmit(event)} noValidate aria-label={props.submitLabel}>
      <ProblemAlert problem={editor.problem} />
      <Field label="Name" error={errorAt(errors, 'name')}>
        <input {...register('name')} />
      </Field>
      <Field
        label="Cron"
        error={errorAt(errors, 'cron')}
        hint="Five fields: minute hour day-of-month month day-of-week (0 9 * * 1-5 is 09:00 on weekdays)"
      >
        <input {...register('cron')} spellCheck={false} />
      </Field>
      <Field label="Time zone" error={errorAt(errors, 'timezone')} hint="The IANA zone the cron is read in">
        <input {...register('timezone')} list={zonesId} spellCheck={false} />
      </Field>
      <datalist id={zonesId}>
        {knownTimeZones().map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      <Field label="Message" error={errorAt(errors, 'message')} hint="The user message each run starts with">
        <textarea {...register('message')} rows={3} />
      </Field>
      <Field label="Thread" error={errorAt(errors, 'thread')}>
        <select {...register('thread')}>
          <option value="new">A new thread at each tick</option>
          <option value="fixed">One thread, continued at each tick</option>
        </select>
      </Field>
      <Field label="After downtime" error={errorAt(errors, 'catch_up')}>
        <select {...register('catch_up')}>
          <option value="skip">Skip the missed ticks</option>
          <option value="once">Run once for the missed ticks</option>
        </select>
      </Field>
      <div className="checkbox">
        <input id={enabledId} type="checkbox" {...register('enabled')} />
        <label htmlFor={enabledId}>Enabled</label>
      </div>
      <div className="actions">
        <button type="submit" disabled={isSubmitting}>
          {props.submitLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
