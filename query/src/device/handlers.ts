import type { Lang } from '@iot/contracts';
import { importFaultText, importReportHeaders } from '@iot/contracts/device/import-faults.ts';
import { DomainError, deviceSnScope, importColumns, type DeviceRoutes, type DeviceRow, type ProductRow } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { csvAnswer } from '../shared/csv.ts';
import {
  deviceById,
  deviceCounts,
  deviceCountsByGroup,
  devicePage,
  thingModelOf,
  type DeviceFilter,
  type DeviceRecord,
} from '@iot/projections/device/read.ts';
import { productById, productPage, productVersions, publishedModel, type ProductRecord } from '@iot/projections/device/product-read.ts';
import { mqttConfigPage, templatePage } from '@iot/projections/device/template-read.ts';
import { productUpgradeProgress } from '@iot/projections/ota/read.ts';
import { iso, isoOrNull, mapRows } from '../shared/paging.ts';
import { assertInStation } from '../shared/station.ts';

const toProductRow = (
  { tenantId: _t, functions: _f, createdBy, updatedBy, createdAt, updatedAt, ...p }: ProductRecord,
  upgradeProgress: number | null = null,
): ProductRow => ({
  ...p,
  upgradeProgress,
  createBy: createdBy,
  updateBy: updatedBy,
  createTime: iso(createdAt),
  updateTime: iso(updatedAt),
});

const toDeviceRow = ({ tenantId: _t, createdBy, createdAt, updatedAt, lastReportAt, ...d }: DeviceRecord): DeviceRow => ({
  ...d,
  lastReportAt: isoOrNull(lastReportAt),
  createBy: createdBy,
  createTime: iso(createdAt),
  updateTime: iso(updatedAt),
});

type DeviceQuery = Omit<DeviceFilter, 'stationId' | 'enabled'> & { enabled?: 'true' | 'false' };

/**
 * The device list's filter: the caller's tenant, narrowed to the current group's subtree (spec §6
 * `stationId`) and to the chosen group's, then the filters.
 */
const deviceFilter = (ctx: RequestContext, { enabled, ...q }: DeviceQuery): DeviceFilter => ({
  ...q,
  stationId: callerOf(ctx).stationId,
  ...(enabled ? { enabled: enabled === 'true' } : {}),
});

const EXPORT_LIMIT = 200_000;
const exportColumns = [
  'sn',
  'name',
  'productName',
  'groupName',
  'gatewayName',
  'status',
  'enabled',
  'lng',
  'lat',
  'address',
  'version',
  'tags',
  'remark',
  'createTime',
] as const;

/** The device file's header in its reader's language, each one the import takes back (its aliases, or the key). */
const exportHeaders: Record<Lang, readonly string[]> = {
  zh: ['序列号', '设备名称', '产品', '分组', '网关', '状态', '启用', '经度', '纬度', '地址', '版本', '标签', '备注', '创建时间'],
  en: ['SN', 'Name', 'Product', 'Group', 'Gateway', 'Status', 'Enabled', 'Lng', 'Lat', 'Address', 'Version', 'Tags', 'Remark', 'Created'],
};

type DeviceReads =
  | 'product.list'
  | 'product.detail'
  | 'product.exportModel'
  | 'device.list'
  | 'device.count'
  | 'device.groupCounts'
  | 'device.detail'
  | 'device.export'
  | 'device.checkSn'
  | 'device.importReport'
  | 'device.importTemplate'
  | 'gateway.list'
  | 'template.list'
  | 'mqttConfig.list';

/** Reads of device management (issue 10). */
export const deviceQueryHandlers: Pick<Handlers<DeviceRoutes>, DeviceReads> = {
  async 'product.list'({ query: { name, type, status, ...page } }, ctx) {
    const { tenantId } = callerOf(ctx);
    const found = await productPage(ctx.ports.db, tenantId, { name, type, status }, page);
    const progress = await productUpgradeProgress(
      ctx.ports.db,
      tenantId,
      found.rows.map((p) => p.id),
    );
    return mapRows(found, (p) => toProductRow(p, progress.get(p.id) ?? null));
  },

  async 'product.detail'({ query }, ctx) {
    const { db } = ctx.ports;
    const product = await productById(db, callerOf(ctx).tenantId, query.id);
    if (!product) throw new DomainError('NOT_FOUND');
    const versions = await productVersions(db, query.id);
    const progress = await productUpgradeProgress(db, product.tenantId, [product.id]);
    return {
      ...toProductRow(product, progress.get(product.id) ?? null),
      functions: product.functions,
      versions: versions.map((v) => ({ ...v, publishedAt: iso(v.publishedAt) })),
    };
  },

  async 'product.exportModel'({ query }, ctx) {
    const { db } = ctx.ports;
    const product = await productById(db, callerOf(ctx).tenantId, query.id);
    if (!product) throw new DomainError('NOT_FOUND');
    const functions = query.version ? await publishedModel(db, query.id, query.version) : product.functions;
    if (!functions) throw new DomainError('NOT_FOUND');
    const name = `${product.code}-thing-model${query.version ? `-v${query.version}` : ''}.json`;
    return rawAnswer('application/json; charset=utf-8', JSON.stringify({ functions }, null, 2), name);
  },

  async 'device.list'({ query: { page, pageSize, sort, order, ...q } }, ctx) {
    const { tenantId } = callerOf(ctx);
    return mapRows(await devicePage(ctx.ports.db, tenantId, deviceFilter(ctx, q), { page, pageSize, sort, order }), toDeviceRow);
  },

  async 'device.count'(_input, ctx) {
    return deviceCounts(ctx.ports.db, callerOf(ctx).tenantId, deviceFilter(ctx, {}));
  },

  async 'device.groupCounts'(_input, ctx) {
    return deviceCountsByGroup(ctx.ports.db, callerOf(ctx).tenantId, deviceFilter(ctx, {}));
  },

  async 'device.detail'({ query }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const device = await deviceById(db, tenantId, query.id);
    if (!device) throw new DomainError('NOT_FOUND');
    await assertInStation(ctx, device.groupId);
    return { ...toDeviceRow(device), functions: await thingModelOf(db, tenantId, device.productId, device.modelVersion) };
  },

  async 'device.export'({ query: { page: _p, pageSize: _s, sort, order, ...q } }, ctx) {
    const page = { page: 1, pageSize: EXPORT_LIMIT, sort, order };
    const devices = await devicePage(ctx.ports.db, callerOf(ctx).tenantId, deviceFilter(ctx, q), page);
    return csvAnswer(
      `devices-${new Date().toISOString().slice(0, 10)}.csv`,
      exportColumns,
      devices.rows.map(toDeviceRow),
      exportHeaders[ctx.lang],
    );
  },

  async 'device.checkSn'({ query }, ctx) {
    const taken = await ctx.ports.db.query('select 1 from claims where scope = $1 and key = $2', [deviceSnScope, query.sn]);
    return { available: taken.rowCount === 0 };
  },

  async 'device.importReport'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const job = await ctx.ports.db.query('select 1 from device_import_jobs where tenant_id = $1 and job_id = $2', [tenantId, query.jobId]);
    if (job.rowCount === 0) throw new DomainError('NOT_FOUND');
    const faults = await ctx.ports.db.query<{ row: number; sn: string | null; field: string | null; reason: string }>(
      'select row, sn, field, reason from device_import_faults where tenant_id = $1 and job_id = $2 order by row',
      [tenantId, query.jobId],
    );
    // Reasons are kept without language: the report is in its reader's.
    const rows = faults.rows.map((f) => ({ ...f, reason: importFaultText(f.reason, ctx.lang) }));
    return csvAnswer(`import-report-${query.jobId}.csv`, ['row', 'sn', 'field', 'reason'], rows, importReportHeaders[ctx.lang]);
  },

  async 'device.importTemplate'() {
    const example = {
      sn: 'SN0001',
      name: '1号设备',
      product: 'PRODUCT-CODE',
      group: '',
      gateway: '',
      lng: '121.47',
      lat: '31.23',
      address: '上海市',
      version: '1.0.0',
      tags: 'a;b',
      remark: '',
    };
    return csvAnswer('device-import-template.csv', importColumns, [example]);
  },

  async 'gateway.list'({ query: { page, pageSize, sort, order, ...q } }, ctx) {
    const filter = deviceFilter(ctx, { ...q, nodeType: 'gateway' });
    const gateways = await devicePage(ctx.ports.db, callerOf(ctx).tenantId, filter, { page, pageSize, sort, order }, { subDevices: true });
    return mapRows(gateways, toDeviceRow);
  },

  async 'template.list'({ query: { name, productId, ...page } }, ctx) {
    const templates = await templatePage(ctx.ports.db, callerOf(ctx).tenantId, { name, productId }, page);
    return mapRows(templates, ({ fields: { productId: _p, ...fields }, ...t }) => ({
      ...fields,
      id: t.id,
      productId: t.productId,
      productName: t.productName,
      variables: t.variables,
      deviceCount: t.deviceCount,
      createBy: t.createdBy,
      createTime: iso(t.createdAt),
    }));
  },

  async 'mqttConfig.list'({ query: { gatewayId, name, ...page } }, ctx) {
    const configs = await mqttConfigPage(ctx.ports.db, callerOf(ctx).tenantId, { gatewayId, name }, page);
    return mapRows(configs, (c) => ({
      ...c.fields,
      id: c.id,
      gatewayName: c.gatewayName,
      hasPassword: c.hasPassword,
      createTime: iso(c.createdAt),
    }));
  },
};
