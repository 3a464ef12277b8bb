import { DomainError, REPORT_MAX_CELLS, REPORT_MAX_DEVICES, type ReportCycle, type ReportFn, type ReportTable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { devicesForReport, thingModelOf, type ReportDevice } from '../device/read.ts';
import { groupById } from '../group/read.ts';

/** What a report computes, over [from, to). */
export interface ReportSpec {
  deviceIds?: readonly string[];
  groupId?: string | null;
  variables: readonly string[];
  fn: ReportFn;
  cycle: ReportCycle;
  timeZone: string;
  from: Date;
  to: Date;
}

/** A report whole: every row, before the screen's cut. */
export type ReportResult = Omit<ReportTable, 'total'>;

const cycleMinutes: Record<ReportCycle, number> = {
  '15m': 15,
  '10m': 10,
  '30m': 30,
  '1h': 60,
  '12h': 720,
  '1d': 1440,
  '1w': 10080,
  '1M': 40320,
};

/** The devices of a report, refused (NOT_FOUND) when a picked one or the group is not the tenant's (or outside the station). */
async function devicesOf(db: Sql, tenantId: string, stationId: string | null, spec: ReportSpec): Promise<ReportDevice[]> {
  if (spec.groupId && !(await groupById(db, tenantId, spec.groupId))) throw new DomainError('NOT_FOUND', { field: 'groupId' });
  const picked = spec.deviceIds && spec.deviceIds.length > 0 ? [...new Set(spec.deviceIds)] : undefined;
  const devices = await devicesForReport(db, tenantId, { deviceIds: picked, groupId: spec.groupId, stationId }, REPORT_MAX_DEVICES + 1);
  if (picked && devices.length !== picked.length) throw new DomainError('NOT_FOUND', { field: 'deviceIds' });
  if (devices.length > REPORT_MAX_DEVICES) throw new DomainError('REPORT_TOO_LARGE');
  return devices;
}

/** Each variable's name and unit from the thing model of the first device whose product has it. */
async function columnsOf(db: Sql, tenantId: string, devices: ReportDevice[], variables: readonly string[]) {
  const models = new Map<string, Awaited<ReturnType<typeof thingModelOf>>>();
  for (const d of devices) {
    const key = `${d.productId}@${d.modelVersion}`;
    if (!models.has(key)) models.set(key, await thingModelOf(db, tenantId, d.productId, d.modelVersion));
  }
  return variables.map((variable) => {
    for (const functions of models.values()) {
      const fn = functions.find((f) => f.identifier === variable);
      if (fn?.type === 'property') return { variable, name: fn.name, unit: fn.dataType.unit ?? null };
    }
    return { variable, name: null, unit: null };
  });
}

/** A report whose rows are read as they are written out: a slice of the range at a time, never the whole table. */
export interface ReportStream extends Omit<ReportResult, 'rows'> {
  rows: AsyncIterable<ReportResult['rows'][number]>;
}

/**
 * A report computed in the time-series store: every variable folded in one query over the devices (the store folds
 * the samples and answers one row per cycle and device, no sample comes into Node), oldest cycle first, devices in
 * serial-number order. The devices and sizes are checked before the first row is read.
 */
export async function streamReport(
  deps: { db: Sql; timeseries: TimeSeriesStore },
  caller: { tenantId: string; stationId: string | null },
  spec: ReportSpec,
): Promise<ReportStream> {
  const devices = await devicesOf(deps.db, caller.tenantId, caller.stationId, spec);
  const cycles = Math.ceil((spec.to.getTime() - spec.from.getTime()) / (cycleMinutes[spec.cycle] * 60_000));
  if (cycles * devices.length * spec.variables.length > REPORT_MAX_CELLS) throw new DomainError('REPORT_TOO_LARGE');
  const columns = await columnsOf(deps.db, caller.tenantId, devices, spec.variables);
  const pages = deps.timeseries.aggregateRows({
    tenantId: caller.tenantId,
    deviceIds: devices.map((d) => d.id),
    variables: spec.variables,
    from: spec.from,
    to: spec.to,
    bucket: spec.cycle,
    fn: spec.fn,
    timeZone: spec.timeZone,
  });
  async function* rows() {
    for await (const page of pages) for (const r of page) yield { time: r.bucket.toISOString(), deviceId: r.deviceId, values: r.values };
  }
  return { columns, devices: devices.map(({ id, sn, name }) => ({ id, sn, name })), rows: rows() };
}

/** A report whole, every row in memory: for what keeps or sends it at once (a mail's file, a data set's answer). */
export async function computeReport(
  deps: { db: Sql; timeseries: TimeSeriesStore },
  caller: { tenantId: string; stationId: string | null },
  spec: ReportSpec,
): Promise<ReportResult> {
  const stream = await streamReport(deps, caller, spec);
  const rows: ReportResult['rows'] = [];
  for await (const row of stream.rows) rows.push(row);
  return { ...stream, rows };
}
