import type { ReportCycle } from '@iot/contracts';
import type { ReportResult } from './compute.ts';

/** Rows a mail carries at most; the rest is left to the screen's export. */
export const MAIL_ROWS = 2_000;

/**
 * The formats of a zone, made once: `toLocaleDateString` with a zone builds a formatter (and loads the zone) on every
 * call, about 2.7 ms on a loaded machine, which a report of 300k rows paid per row.
 */
const zoneFormats = new Map<string, { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat }>();
function formatsOf(timeZone: string) {
  let formats = zoneFormats.get(timeZone);
  if (!formats) {
    formats = {
      day: new Intl.DateTimeFormat('sv-SE', { timeZone }),
      time: new Intl.DateTimeFormat('sv-SE', { timeZone, hour: '2-digit', minute: '2-digit' }),
    };
    zoneFormats.set(timeZone, formats);
  }
  return formats;
}

/** A cycle's start as the report's readers read it: local time in the report's zone, to the minute. */
export function localTime(iso: string, timeZone: string, cycle: ReportCycle): string {
  const at = new Date(iso);
  const formats = formatsOf(timeZone);
  const day = formats.day.format(at);
  if (cycle === '1d' || cycle === '1w' || cycle === '1M') return day;
  return `${day} ${formats.time.format(at)}`;
}

/** A report as the text of a mail, in both languages (a contact has no language of their own): a tab-separated table. */
export function reportMailText(
  report: { name: string; timeZone: string; cycle: ReportCycle; fn: string },
  period: { from: Date; to: Date },
  result: ReportResult,
  attached = false,
): string {
  const names = new Map(result.devices.map((d) => [d.id, `${d.name} (${d.sn})`]));
  const head = ['时间 Time', '设备 Device', ...result.columns.map((c) => `${c.name ?? c.variable}${c.unit ? ` (${c.unit})` : ''}`)];
  const lines = result.rows
    .slice(0, MAIL_ROWS)
    .map((r) => [
      localTime(r.time, report.timeZone, report.cycle),
      names.get(r.deviceId) ?? r.deviceId,
      ...r.values.map((v) => (v === null ? '' : String(v))),
    ]);
  const range = `${period.from.toISOString()} — ${period.to.toISOString()}`;
  return [
    `报表 Report: ${report.name}`,
    `时间范围 Range: ${range} (${report.timeZone}), 周期 Cycle: ${report.cycle}, 聚合 Aggregation: ${report.fn}`,
    `设备 Devices: ${result.devices.length}, 行 Rows: ${result.rows.length}`,
    ...(attached ? ['完整表格见 XLSX 附件 / The whole table is attached as XLSX'] : []),
    ...(result.rows.length > MAIL_ROWS ? [`仅列出前 ${MAIL_ROWS} 行 / Only the first ${MAIL_ROWS} rows are listed`] : []),
    '',
    head.join('\t'),
    ...lines.map((l) => l.join('\t')),
  ].join('\n');
}
