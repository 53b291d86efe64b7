// A tick as a person reads it: in the schedule's time zone (what its cron means) and in the viewer's own.
const PARTS: Intl.DateTimeFormatOptions = {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

/** The viewer's time zone, as the browser knows it. */
export const viewerTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export function formatInZone(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat(undefined, { ...PARTS, timeZone }).format(new Date(iso));
}

/** The IANA names the browser knows, for the time zone picker; UTC first, which some browsers leave out. */
export function knownTimeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
}
