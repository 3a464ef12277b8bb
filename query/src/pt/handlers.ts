import { DomainError, type Lang, type Page, type PtRoutes, type PtStatus } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { devicePage, type DeviceRecord } from '@iot/projections/device/read.ts';
import { usernamesById, usersPage } from '@iot/projections/user/read.ts';
import {
  ptBatchesPage,
  ptConfigById,
  ptConfigsPage,
  ptDeviceStates,
  ptIccidsPage,
  ptOperationsPage,
  ptReportById,
  ptReportsPage,
  type PtOperationFilter,
  type PtReportRecord,
} from '@iot/projections/pt/read.ts';
import { excelJs } from '../shared/xlsx.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { csvAnswer } from '../shared/csv.ts';
import { mapRows } from '../shared/paging.ts';
import { reportPdf, reportXlsx } from './report-files.ts';

type PtReads =
  | 'ptConfig.list'
  | 'ptBatch.list'
  | 'ptIccid.list'
  | 'ptIccid.template'
  | 'ptBinding.list'
  | 'production.devices'
  | 'quality.devices'
  | 'ptReport.list'
  | 'ptReport.export'
  | 'qcReport.list'
  | 'qcReport.export'
  | 'ptOperation.list'
  | 'ptOperation.export';

const EXPORT_LIMIT = 100_000;
const bool = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');

async function configOf(ctx: RequestContext, id: string) {
  const config = await ptConfigById(ctx.ports.db, callerOf(ctx).tenantId, id);
  if (!config) throw new DomainError('NOT_FOUND', { field: 'configId' });
  return config;
}

/** The devices of a configuration's product in the caller's station, with their test status (spec §3 PT device). */
async function ptDevices(
  ctx: RequestContext,
  q: { configId: string; page: number; pageSize: number; sn?: string; testStatus?: PtStatus },
): Promise<Page<ReturnType<typeof toPtDevice>>> {
  const caller = callerOf(ctx);
  const config = await configOf(ctx, q.configId);
  const filter = { productId: config.productId, sn: q.sn, stationId: caller.stationId };
  const withStates = async (rows: DeviceRecord[]) => {
    const states = await ptDeviceStates(
      ctx.ports.db,
      caller.tenantId,
      rows.map((d) => d.id),
    );
    return rows.map((d) => toPtDevice(d, states.get(d.id)));
  };
  if (!q.testStatus) {
    const page = await devicePage(ctx.ports.db, caller.tenantId, filter, { page: q.page, pageSize: q.pageSize, order: 'asc', sort: 'sn' });
    return { ...page, rows: await withStates(page.rows) };
  }
  // A status filter reads the product's devices whole (a production line's product, thousands at most) and pages them here.
  const all: ReturnType<typeof toPtDevice>[] = [];
  for (let n = 1; n <= 40; n++) {
    const page = await devicePage(ctx.ports.db, caller.tenantId, filter, { page: n, pageSize: 500, order: 'asc', sort: 'sn' });
    all.push(...(await withStates(page.rows)).filter((d) => d.testStatus === q.testStatus));
    if (n * 500 >= page.total) break;
  }
  const start = (q.page - 1) * q.pageSize;
  return { rows: all.slice(start, start + q.pageSize), total: all.length, page: q.page, pageSize: q.pageSize };
}
const toPtDevice = (
  d: DeviceRecord,
  s: Awaited<ReturnType<typeof ptDeviceStates>> extends Map<string, infer V> ? V | undefined : never,
) => ({
  deviceId: d.id,
  name: d.name,
  sn: d.sn,
  deviceStatus: d.status,
  testStatus: s?.status ?? ('untested' as const),
  passed: s?.passed ?? null,
  productSn: s?.productSn ?? null,
  iccid: s?.iccid ?? null,
  reportId: s?.reportId ?? null,
  qcReportId: s?.qcReportId ?? null,
  updateTime: s ? s.updatedAt.toISOString() : null,
});

const toReport = ({ testTime, createdAt, ...r }: PtReportRecord) => ({
  ...r,
  testTime: testTime.toISOString(),
  createTime: createdAt.toISOString(),
});

async function exportReport(ctx: RequestContext, kind: 'pt' | 'qc', q: { id: string; format: 'xlsx' | 'pdf' }) {
  const report = await ptReportById(ctx.ports.db, callerOf(ctx).tenantId, kind, q.id);
  if (!report) throw new DomainError('NOT_FOUND');
  return q.format === 'pdf' ? reportPdf(report, ctx.lang) : reportXlsx(report, ctx.lang);
}

const operationColumns = ['sn', 'productName', 'productCode', 'operation', 'detail', 'user', 'createTime'] as const;
const operationHeaders: Record<Lang, readonly string[]> = {
  zh: ['设备SN', '产品名称', '产品编码', '操作', '详情', '操作人', '时间'],
  en: ['Device SN', 'Product name', 'Product code', 'Operation', 'Detail', 'User', 'Time'],
};

async function exportOperations(ctx: RequestContext, q: PtOperationFilter & { format?: 'csv' | 'xlsx' }) {
  const page = await ptOperationsPage(ctx.ports.db, callerOf(ctx).tenantId, q, { page: 1, pageSize: EXPORT_LIMIT, order: 'desc' });
  const rows = page.rows.map((r) => ({ ...r, createTime: r.createdAt.toISOString() }));
  const name = `pt-operations-${new Date().toISOString().slice(0, 10)}`;
  const headers = operationHeaders[ctx.lang];
  if (q.format !== 'xlsx') return csvAnswer(`${name}.csv`, operationColumns, rows, headers);
  const book = new (await excelJs()).Workbook();
  const sheet = book.addWorksheet('operations');
  sheet.columns = operationColumns.map((c, i) => ({ header: headers[i], key: c, width: c === 'createTime' ? 26 : 18 }));
  // Cells go in as text (never formulas).
  for (const row of rows) sheet.addRow(Object.fromEntries(operationColumns.map((c) => [c, row[c] ?? ''])));
  const bytes = new Uint8Array(await book.xlsx.writeBuffer());
  return rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes, `${name}.xlsx`);
}

/** Reads of the product-test screens: configurations, batches, ICCIDs, binding, devices under test, reports, records. */
export const ptQueryHandlers: Pick<Handlers<PtRoutes>, PtReads> = {
  async 'ptConfig.list'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    const page = await ptConfigsPage(ctx.ports.db, tenantId, { alias: q.alias, productId: q.productId }, q);
    const ids = [...new Set(page.rows.flatMap((c) => [...c.boundUserIds, c.createdBy, ...(c.qcTesterId ? [c.qcTesterId] : [])]))];
    const names = await usernamesById(ctx.ports.db, ids, tenantId);
    return mapRows(page, ({ createdAt, createdBy, ...c }) => ({
      ...c,
      qcTesterName: c.qcTesterId ? (names.get(c.qcTesterId) ?? c.qcTesterId) : null,
      boundUserNames: c.boundUserIds.map((u) => names.get(u) ?? u),
      creator: names.get(createdBy) ?? createdBy,
      createTime: createdAt.toISOString(),
    }));
  },
  async 'ptBatch.list'({ query: q }, ctx) {
    const page = await ptBatchesPage(ctx.ports.db, callerOf(ctx).tenantId, { batchNo: q.batchNo }, q);
    return mapRows(page, ({ createdAt, ...b }) => ({ ...b, createTime: createdAt.toISOString() }));
  },
  async 'ptIccid.list'({ query: q }, ctx) {
    const filter = { iccid: q.iccid, batchId: q.batchId, paired: bool(q.paired) };
    const page = await ptIccidsPage(ctx.ports.db, callerOf(ctx).tenantId, filter, q);
    return mapRows(page, ({ createdAt, ...i }) => ({ ...i, id: i.iccid, createTime: createdAt.toISOString() }));
  },
  async 'ptIccid.template'(_input, ctx) {
    const head = ctx.lang === 'zh' ? ['iccid', 'remark'] : ['iccid', 'remark'];
    return csvAnswer('iccid-template.csv', ['iccid', 'remark'], [{ iccid: '89860000000000000001', remark: '' }], head);
  },
  async 'ptBinding.list'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    const config = await configOf(ctx, q.configId);
    const users = await usersPage(
      ctx.ports.db,
      tenantId,
      { username: q.username },
      { ...q, sort: 'username', order: q.sort ? q.order : 'asc' },
    );
    const bound = new Set(config.boundUserIds);
    return mapRows(users, (u) => ({ userId: u.id, username: u.username, bound: bound.has(u.id) }));
  },
  'production.devices': ({ query }, ctx) => ptDevices(ctx, query),
  'quality.devices': ({ query }, ctx) => ptDevices(ctx, query),
  async 'ptReport.list'({ query: q }, ctx) {
    const filter = { configId: q.configId, sn: q.sn, passed: bool(q.passed) };
    return mapRows(await ptReportsPage(ctx.ports.db, callerOf(ctx).tenantId, 'pt', filter, q), toReport);
  },
  async 'qcReport.list'({ query: q }, ctx) {
    const filter = { configId: q.configId, sn: q.sn, passed: bool(q.passed) };
    return mapRows(await ptReportsPage(ctx.ports.db, callerOf(ctx).tenantId, 'qc', filter, q), toReport);
  },
  'ptReport.export': ({ query }, ctx) => exportReport(ctx, 'pt', query),
  'qcReport.export': ({ query }, ctx) => exportReport(ctx, 'qc', query),
  async 'ptOperation.list'({ query: q }, ctx) {
    const page = await ptOperationsPage(ctx.ports.db, callerOf(ctx).tenantId, q, q);
    return mapRows(page, ({ createdAt, ...o }) => ({ ...o, createTime: createdAt.toISOString() }));
  },
  'ptOperation.export': ({ query }, ctx) => exportOperations(ctx, query),
};
