import type { ReportFrequency } from '@iot/contracts';

type Scheduled = Exclude<ReportFrequency, 'none'>;

/** The cron expression of a schedule at `hour` local time: every day, Mondays, the 1st of each month. */
export function cronOf(frequency: Scheduled, hour: number): string {
  switch (frequency) {
    case 'daily':
      return `0 ${hour} * * *`;
    case 'weekly':
      return `0 ${hour} * * 1`;
    case 'monthly':
      return `0 ${hour} 1 * *`;
  }
}

/** The local calendar day of an instant in a zone. */
function localDay(at: Date, timeZone: string): { y: number; m: number; d: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { y: n('year'), m: n('month'), d: n('day') };
}

/** Minutes the zone is ahead of UTC at an instant. */
function offsetMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return (Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute')) - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000;
}

/** The instant a local day starts in a zone (month and day may overflow: Date.UTC carries them). */
export function localMidnight(y: number, m: number, d: number, timeZone: string): Date {
  const wall = Date.UTC(y, m - 1, d);
  let at = wall - offsetMinutes(new Date(wall), timeZone) * 60_000;
  // Once more at the guess: the offset may change between the wall time read as UTC and the real instant.
  at = wall - offsetMinutes(new Date(at), timeZone) * 60_000;
  return new Date(at);
}

const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/**
 * The period a sending at `fireAt` covers: the local day, Monday-based week or month that closed before it, and its
 * name (the claim's key: one sending per report and period).
 */
export function closedPeriod(frequency: Scheduled, fireAt: Date, timeZone: string): { from: Date; to: Date; name: string } {
  const { y, m, d } = localDay(fireAt, timeZone);
  switch (frequency) {
    case 'daily':
      return { from: localMidnight(y, m, d - 1, timeZone), to: localMidnight(y, m, d, timeZone), name: `day:${iso(y, m, d - 1)}` };
    case 'weekly': {
      const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
      const monday = d - weekday;
      return {
        from: localMidnight(y, m, monday - 7, timeZone),
        to: localMidnight(y, m, monday, timeZone),
        name: `week:${iso(y, m, monday - 7)}`,
      };
    }
    case 'monthly':
      return {
        from: localMidnight(y, m - 1, 1, timeZone),
        to: localMidnight(y, m, 1, timeZone),
        name: `month:${iso(y, m - 1, 1).slice(0, 7)}`,
      };
  }
}
