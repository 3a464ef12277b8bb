import type { Lang } from '@iot/contracts';
import { deadLetterReasonText } from '@iot/contracts/telemetry/dead-letters.ts';
import { DomainError, type TelemetryRoutes, type ThingFunction } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { TelemetryRow, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { PassThrough } from 'node:stream';
import { excelJs } from '../shared/xlsx.ts';
import { csvStream } from '../shared/csv.ts';
import { deviceById, thingModelOf } from '@iot/projections/device/read.ts';
import { pageRows } from '@iot/projections/shared/page.ts';
import { iso, mapRows, param, type ListSpec } from '../shared/paging.ts';
import { assertInStation } from '../shared/station.ts';

type Property = Extract<ThingFunction, { type: 'property' }>;

/** A message the intake could not take (its table ingest_dead_letters, written by ingest/src/tables.ts). */
type DeadLetterRow = { id: string; deviceId: string | null; sn: string | null; topic: string; reason: string; payload: string; at: Date };

/** The device of the caller's tenant (and current group subtree) with the thing model it reports against. */
async function deviceWithModel(ctx: RequestContext, id: string) {
  const { tenantId } = callerOf(ctx);
  const device = await deviceById(ctx.ports.db, tenantId, id);
  if (!device) throw new DomainError('NOT_FOUND');
  await assertInStation(ctx, device.groupId);
  const functions = await thingModelOf(ctx.ports.db, tenantId, device.productId, device.modelVersion);
  const properties = new Map(functions.filter((f): f is Property => f.type === 'property').map((f) => [f.identifier, f]));
  return { id: device.id, properties };
}

/** Spec §7 convert rules: an enum's label, a boolean's, a number with its unit. */
export function displayOf(fn: Property | undefined, value: number | null, text: string | null): string {
  if (value === null && text === null) return '--';
  const spec = fn?.dataType;
  if (spec?.type === 'enum') {
    const raw = value ?? text;
    return spec.enumValues?.find((e) => String(e.value) === String(raw))?.label ?? String(raw);
  }
  if (spec?.type === 'bool') return value === 1 ? '是' : '否';
  if (text !== null) return text;
  return spec?.unit ? `${value} ${spec.unit}` : String(value);
}

const store = (ctx: RequestContext): TimeSeriesStore => {
  if (!ctx.ports.timeseries) throw new DomainError('INTERNAL');
  return ctx.ports.timeseries;
};

/** Reads of live and historical telemetry (issue 11). */
const EXPORT_PAGE = 10_000;
const historyColumns = ['time', 'variable', 'name', 'value', 'display'] as const;
/** The history file's header in its reader's language. */
const historyHeaders: Record<Lang, readonly string[]> = {
  zh: ['时间', '标识符', '名称', '值', '显示值'],
  en: ['Time', 'Identifier', 'Name', 'Value', 'Display'],
};

/** Every row of the range, a page at a time: what an export streams. */
async function* historyRows(ts: TimeSeriesStore, tenantId: string, deviceId: string, variables: string[], from: Date, to: Date) {
  for (const variable of variables) {
    for (let offset = 0; ; offset += EXPORT_PAGE) {
      const page = await ts.queryHistory({ tenantId, deviceId, variable, from, to, limit: EXPORT_PAGE, offset });
      for (const row of page.rows) yield row;
      if (page.rows.length < EXPORT_PAGE) break;
    }
  }
}

/** One line of a history export: the bare value in its column (a number, left alone), the display as the screen shows it. */
async function* historyLines(rows: AsyncIterable<TelemetryRow>, names: Map<string, Property>) {
  for await (const r of rows) {
    const fn = names.get(r.variable);
    yield [r.ts.toISOString(), r.variable, fn?.name ?? '', r.value ?? r.text ?? '', displayOf(fn, r.value, r.text)];
  }
}

async function* xlsxStream(rows: AsyncIterable<TelemetryRow>, names: Map<string, Property>, lang: Lang) {
  const out = new PassThrough();
  const book = new (await excelJs()).stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet('history');
  sheet.columns = historyColumns.map((key, i) => ({ header: historyHeaders[lang][i], key, width: key === 'time' ? 26 : 16 }));
  const writing = (async () => {
    // The same lines as the CSV; a cell is text or a number here, never a formula, so nothing is escaped.
    for await (const line of historyLines(rows, names)) sheet.addRow(line).commit();
    sheet.commit();
    await book.commit();
  })();
  for await (const chunk of out) yield chunk as Uint8Array;
  await writing;
}

/** A device's newest value of every variable (in the caller's tenant and station), displayed by its thing model. */
export async function latestValuesOf(ctx: RequestContext, id: string) {
  const device = await deviceWithModel(ctx, id);
  const rows = await store(ctx).latest({ tenantId: callerOf(ctx).tenantId, deviceIds: [device.id] });
  return rows.map((r) => {
    const fn = device.properties.get(r.variable);
    return {
      variable: r.variable,
      name: fn?.name ?? null,
      unit: fn?.dataType.unit ?? null,
      ts: r.ts.toISOString(),
      value: r.value,
      text: r.text,
      display: displayOf(fn, r.value, r.text),
    };
  });
}

export const telemetryQueryHandlers: Pick<
  Handlers<TelemetryRoutes>,
  'telemetry.latest' | 'telemetry.history' | 'telemetry.deadLetters' | 'telemetry.export'
> = {
  async 'telemetry.export'({ query: q }, ctx) {
    if (!q.id || !q.variables?.length) throw new DomainError('QUERY_INCOMPLETE');
    const device = await deviceWithModel(ctx, q.id);
    const rows = historyRows(store(ctx), callerOf(ctx).tenantId, device.id, q.variables, new Date(q.from), new Date(q.to));
    const name = `history-${device.id.slice(0, 8)}-${q.from.slice(0, 10)}`;
    return q.format === 'xlsx'
      ? rawAnswer(
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          xlsxStream(rows, device.properties, ctx.lang),
          `${name}.xlsx`,
        )
      : rawAnswer('text/csv; charset=utf-8', csvStream(historyHeaders[ctx.lang], historyLines(rows, device.properties)), `${name}.csv`);
  },

  'telemetry.latest': ({ query }, ctx) => latestValuesOf(ctx, query.id),

  async 'telemetry.history'({ query: q }, ctx) {
    if (!q.id || !q.variables?.length) throw new DomainError('QUERY_INCOMPLETE');
    const device = await deviceWithModel(ctx, q.id);
    const { tenantId } = callerOf(ctx);
    const [from, to] = [new Date(q.from), new Date(q.to)];
    return Promise.all(
      q.variables.map(async (variable) => {
        const fn = device.properties.get(variable);
        const head = { variable, name: fn?.name ?? null, unit: fn?.dataType.unit ?? null };
        if (q.bucket === 'raw') {
          const page = await store(ctx).queryHistory({
            tenantId,
            deviceId: device.id,
            variable,
            from,
            to,
            limit: q.pageSize,
            offset: (q.page - 1) * q.pageSize,
          });
          return { ...head, total: page.total, points: page.rows.map((r) => ({ ts: r.ts.toISOString(), value: r.value, text: r.text })) };
        }
        const points = await store(ctx).aggregate({
          tenantId,
          deviceIds: [device.id],
          variable,
          from,
          to,
          bucket: q.bucket,
          fn: q.fn,
          timeZone: q.timeZone,
        });
        return { ...head, total: points.length, points: points.map((p) => ({ ts: p.bucket.toISOString(), value: p.value, text: null })) };
      }),
    );
  },

  async 'telemetry.deadLetters'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: `id::text as id, device_id as "deviceId", sn, topic, reason, payload, at`,
      from: 'ingest_dead_letters',
      where: ['tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { at: 'at' },
      defaultSort: 'at',
    };
    if (q.sn) spec.where.push(`sn ilike ${param(spec.params, `%${q.sn}%`)}`);
    if (q.reason) spec.where.push(`reason ilike ${param(spec.params, `%${q.reason}%`)}`);
    const page = await pageRows<DeadLetterRow>(ctx.ports.db, q, spec);
    // Written once by the intake; read in the reader's language.
    return mapRows(page, (r) => ({ ...r, reason: deadLetterReasonText(r.reason, ctx.lang), at: iso(r.at) }));
  },
};
