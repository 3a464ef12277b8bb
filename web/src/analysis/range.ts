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

const UNITS = {
  en: { d: 'd ', h: 'h ', m: 'm ', s: 's' },
  zh: { d: '天', h: '小时', m: '分', s: '秒' },
} as const;

/**
 * Seconds as the screens show a duration, in the screen's language: `2h 5m`, `3m 20s`, `45s` (`2小时5分`, `3分20秒`,
 * `45秒`); days past 48 hours.
 */
export function durationText(seconds: number | null | undefined, lang: 'en' | 'zh' = 'en'): string {
  if (seconds === null || seconds === undefined) return '-';
  const u = UNITS[lang];
  const s = Math.round(seconds);
  const two = (a: number, ua: string, b: number, ub: string) => `${a}${ua}${b}${ub}`.trimEnd();
  if (s < 60) return `${s}${u.s}`;
  if (s < 3600) return two(Math.floor(s / 60), u.m, s % 60, u.s);
  if (s < 48 * 3600) return two(Math.floor(s / 3600), u.h, Math.floor((s % 3600) / 60), u.m);
  return two(Math.floor(s / 86400), u.d, Math.floor((s % 86400) / 3600), u.h);
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
