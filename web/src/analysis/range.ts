/** A range of whole local days as the statistics screens pick it: `from` and `to` are dates (YYYY-MM-DD), `to` included. */
export interface DayRange {
  from: string;
  to: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** A local date as YYYY-MM-DD. */
export const dayOf = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** The last `days` days up to today. */
export function lastDays(days: number, now = new Date()): DayRange {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1));
  return { from: dayOf(start), to: dayOf(now) };
}

/** The range as the routes take it: instants from the first day's local midnight to the midnight after the last day. */
export function instantsOf(range: DayRange): { from: string; to: string; timeZone: string } {
  const [fy, fm, fd] = range.from.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = range.to.split('-').map(Number) as [number, number, number];
  return {
    from: new Date(fy, fm - 1, fd).toISOString(),
    to: new Date(ty, tm - 1, td + 1).toISOString(),
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

/** Seconds as the screens show a duration: `2h 5m`, `3m 20s`, `45s`; days past 48 hours. */
export function durationText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

/** Every day of the range in order, so that a trend shows the days without alarms as zero. */
export function daysOf(range: DayRange): string[] {
  const [y, m, d] = range.from.split('-').map(Number) as [number, number, number];
  const out: string[] = [];
  for (let i = 0; out.length < 400; i++) {
    const day = dayOf(new Date(y, m - 1, d + i));
    if (day > range.to) break;
    out.push(day);
  }
  return out;
}
