// Tick arithmetic across DST transitions and downtimes, on explicit instants (the clock is an argument).
// 2026: Europe/Paris springs forward on 29 March (02:00 CET -> 03:00 CEST) and falls back on 25 October
// (03:00 CEST -> 02:00 CET); America/New_York on 8 March (02:00 EST -> 03:00 EDT) and 1 November
// (02:00 EDT -> 01:00 EST).
import { describe, expect, it } from '@jest/globals';
import { LATE_TICK_GRACE_MS, nextTicks, planTick } from './schedule-times.js';

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());
const at = (instant: string) => new Date(instant);

describe('a wall-clock time in the spring-forward gap', () => {
  it('fires once, at 03:00 local, in Europe/Paris', () => {
    const ticks = nextTicks({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, at('2026-03-28T12:00:00Z'), 3);
    // 03:00 CEST on the 29th, then 02:30 CET/CEST as usual.
    expect(iso(ticks)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
  });

  it('fires once, at 03:00 local, in America/New_York', () => {
    const ticks = nextTicks({ cron: '30 2 * * *', timezone: 'America/New_York' }, at('2026-03-07T12:00:00Z'), 3);
    expect(iso(ticks)).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z', '2026-03-10T06:30:00.000Z']);
  });

  it('is skipped by an interval pattern, as elapsed time skips it', () => {
    const ticks = nextTicks({ cron: '30 * * * *', timezone: 'America/New_York' }, at('2026-03-08T06:00:00Z'), 2);
    // 01:30 EST, then 03:30 EDT: 02:30 does not exist that night.
    expect(iso(ticks)).toEqual(['2026-03-08T06:30:00.000Z', '2026-03-08T07:30:00.000Z']);
  });
});

describe('a wall-clock time repeated at fall-back', () => {
  it('fires once, at its first occurrence, in Europe/Paris', () => {
    const ticks = nextTicks({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, at('2026-10-24T12:00:00Z'), 2);
    // 02:30 CEST (00:30Z); the second 02:30 (CET, 01:30Z) does not fire.
    expect(iso(ticks)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('fires once, at its first occurrence, in America/New_York', () => {
    const ticks = nextTicks({ cron: '30 1 * * *', timezone: 'America/New_York' }, at('2026-10-31T12:00:00Z'), 2);
    expect(iso(ticks)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('fires at both occurrences for an interval pattern, one hour apart', () => {
    const ticks = nextTicks({ cron: '0 * * * *', timezone: 'America/New_York' }, at('2026-11-01T04:30:00Z'), 3);
    // 01:00 EDT, 01:00 EST, 02:00 EST.
    expect(iso(ticks)).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T07:00:00.000Z']);
  });

  it('treats a list of fixed hours as wall-clock times too', () => {
    const ticks = nextTicks({ cron: '30 1,13 * * *', timezone: 'America/New_York' }, at('2026-11-01T04:00:00Z'), 2);
    expect(iso(ticks)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T18:30:00.000Z']);
  });
});

describe('planTick', () => {
  const hourly = { cron: '0 * * * *', timezone: 'UTC' };

  it('fires a due tick that is only late', () => {
    const due = at('2026-01-01T10:00:00Z');
    const plan = planTick({ ...hourly, catchUp: 'skip' }, due, new Date(due.getTime() + LATE_TICK_GRACE_MS));
    expect(plan).toEqual({ fire: due, missed: undefined, next: at('2026-01-01T11:00:00Z') });
  });

  it('with catch_up skip, fires none of the ticks a downtime missed and resumes at the next one', () => {
    const plan = planTick({ ...hourly, catchUp: 'skip' }, at('2026-01-01T10:00:00Z'), at('2026-01-01T13:20:00Z'));
    expect(plan).toEqual({ fire: undefined, missed: at('2026-01-01T13:00:00Z'), next: at('2026-01-01T14:00:00Z') });
  });

  it('with catch_up once, fires the newest missed tick once and resumes at the next one', () => {
    const plan = planTick({ ...hourly, catchUp: 'once' }, at('2026-01-01T10:00:00Z'), at('2026-01-01T13:20:00Z'));
    expect(plan).toEqual({ fire: at('2026-01-01T13:00:00Z'), missed: undefined, next: at('2026-01-01T14:00:00Z') });
  });

  it('counts a single tick seen long after its time as missed', () => {
    const daily = { cron: '0 9 * * *', timezone: 'Europe/Paris', catchUp: 'skip' as const };
    const plan = planTick(daily, at('2026-01-01T08:00:00Z'), at('2026-01-01T12:00:00Z'));
    expect(plan).toEqual({ fire: undefined, missed: at('2026-01-01T08:00:00Z'), next: at('2026-01-02T08:00:00Z') });
  });
});
