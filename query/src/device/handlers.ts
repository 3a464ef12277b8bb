import type { Lang } from '@iot/contracts';
import { importFaultText, importReportHeaders } from '@iot/contracts/device/import-faults.ts';
import {
  DomainError,
  deviceSnScope,
  importColumns,
  type DeviceRoutes,
  type DeviceRow,
  type MqttConfigFields,
  type ProductRow,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { csvAnswer } from '../shared/csv.ts';
import { iso, isoOrNull, pageOf, param, type ListSpec } from '../shared/paging.ts';
import { assertInStation } from '../shared/station.ts';

const toProductRow = (r: Record<string, unknown>): ProductRow => ({
  id: r.id as string,
  key: r.key as string,
  name: r.name as string,
  code: r.code as string,
  type: r.type as ProductRow['type'],
  category: (r.category as string | null) ?? null,
  version: (r.version as string | null) ?? null,
  company: (r.company as string | null) ?? null,
  model: (r.model as string | null) ?? null,
  manufacturer: (r.manufacturer as string | null) ?? null,
  protocol: r.protocol as string,
  description: (r.description as string | null) ?? null,
  status: r.status as ProductRow['status'],
  modelVersion: r.model_version as number,
  draftChanged: r.draft_changed as boolean,
  functionCount: r.function_count as number,
  deviceCount: r.device_count as number,
  upgradeProgress: null,
  createBy: (r.created_by_name as string | null) ?? (r.created_by as string),
  updateBy: (r.updated_by_name as string | null) ?? (r.updated_by as string),
  createTime: iso(r.created_at),
  updateTime: iso(r.updated_at),
});

const productSelect = `p.*, jsonb_array_length(p.functions) as function_count,
  (select count(*)::int from rm_devices d where d.tenant_id = p.tenant_id and d.product_id = p.id) as device_count,
  p.functions is distinct from (select v.functions from rm_product_versions v where v.product_id = p.id order by v.version desc limit 1) as draft_changed,
  (select username from rm_users u where u.id = p.created_by) as created_by_name,
  (select username from rm_users u where u.id = p.updated_by) as updated_by_name`;

const toDeviceRow = (r: Record<string, unknown>): DeviceRow => ({
  id: r.id as string,
  sn: r.sn as string,
  name: r.name as string,
  productId: r.product_id as string,
  productName: (r.product_name as string | null) ?? null,
  modelVersion: r.model_version as number,
  nodeType: r.node_type as DeviceRow['nodeType'],
  groupId: (r.group_id as string | null) ?? null,
  groupName: (r.group_name as string | null) ?? null,
  gatewayId: (r.gateway_id as string | null) ?? null,
  gatewayName: (r.gateway_name as string | null) ?? null,
  status: r.status as DeviceRow['status'],
  enabled: r.enabled as boolean,
  lng: (r.lng as number | null) ?? null,
  lat: (r.lat as number | null) ?? null,
  address: (r.address as string | null) ?? null,
  version: (r.version as string | null) ?? null,
  tags: (r.tags as string[]) ?? [],
  remark: (r.remark as string | null) ?? null,
  templateId: (r.template_id as string | null) ?? null,
  subDeviceCount: (r.sub_device_count as number | undefined) ?? 0,
  lastReportAt: isoOrNull(r.reported_at ?? r.last_report_at),
  createBy: (r.created_by_name as string | null) ?? (r.created_by as string),
  createTime: iso(r.created_at),
  updateTime: iso(r.updated_at),
});

const deviceSelect = `d.*,
  (select name from rm_products p where p.id = d.product_id) as product_name,
  (select name from rm_groups g where g.id = d.group_id) as group_name,
  (select name from rm_devices w where w.id = d.gateway_id) as gateway_name,
  (select username from rm_users u where u.id = d.created_by) as created_by_name,
  (select r.last_report_at from device_reports r where r.device_id = d.id) as reported_at`;

type DeviceFilters = {
  name?: string;
  sn?: string;
  productId?: string;
  groupId?: string;
  gatewayId?: string;
  status?: string;
  enabled?: string;
  nodeType?: string;
  tag?: string;
};

/**
 * The device list's query: the caller's tenant, narrowed to the current group's subtree (spec §6
 * `stationId`) and to the chosen group's, then the filters.
 */
async function deviceSpec(ctx: RequestContext, q: DeviceFilters, select = deviceSelect): Promise<ListSpec> {
  const caller = callerOf(ctx);
  const spec: ListSpec = {
    select,
    from: 'rm_devices d',
    where: ['d.tenant_id = $1'],
    params: [caller.tenantId],
    sortable: {
      createTime: 'd.created_at',
      name: 'lower(d.name)',
      sn: 'd.sn',
      status: 'd.status',
      lastReportAt: '(select r.last_report_at from device_reports r where r.device_id = d.id)',
    },
    defaultSort: 'd.created_at',
  };
  for (const root of [caller.stationId, q.groupId]) {
    if (root) spec.where.push(`d.group_id = any(${param(spec.params, await ctx.ports.lookups.groupSubtree(caller.tenantId, root))})`);
  }
  if (q.name) spec.where.push(`d.name ilike ${param(spec.params, `%${q.name}%`)}`);
  if (q.sn) spec.where.push(`d.sn ilike ${param(spec.params, `%${q.sn}%`)}`);
  if (q.productId) spec.where.push(`d.product_id = ${param(spec.params, q.productId)}`);
  if (q.gatewayId) spec.where.push(`d.gateway_id = ${param(spec.params, q.gatewayId)}`);
  if (q.status) spec.where.push(`d.status = ${param(spec.params, q.status)}`);
  if (q.enabled) spec.where.push(`d.enabled = ${param(spec.params, q.enabled === 'true')}`);
  if (q.nodeType) spec.where.push(`d.node_type = ${param(spec.params, q.nodeType)}`);
  if (q.tag) spec.where.push(`${param(spec.params, q.tag)} = any(d.tags)`);
  return spec;
}

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
  async 'product.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: productSelect,
      from: 'rm_products p',
      where: ['p.tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 'p.created_at', name: 'lower(p.name)', code: 'p.code' },
      defaultSort: 'p.created_at',
    };
    if (q.name) spec.where.push(`(p.name ilike ${param(spec.params, `%${q.name}%`)} or p.code ilike $${spec.params.length})`);
    if (q.type) spec.where.push(`p.type = ${param(spec.params, q.type)}`);
    if (q.status) spec.where.push(`p.status = ${param(spec.params, q.status)}`);
    return pageOf(ctx.ports.db, q, spec, toProductRow);
  },

  async 'product.detail'({ query }, ctx) {
    const { db } = ctx.ports;
    const row = (
      await db.query(`select ${productSelect} from rm_products p where p.id = $1 and p.tenant_id = $2`, [query.id, callerOf(ctx).tenantId])
    ).rows[0];
    if (!row) throw new DomainError('NOT_FOUND');
    const versions = await db.query<{ version: number; published_at: Date; published_by: string; n: number }>(
      `select version, published_at, coalesce((select username from rm_users u where u.id = v.published_by), published_by) as published_by,
         jsonb_array_length(functions) as n from rm_product_versions v where product_id = $1 order by version desc`,
      [query.id],
    );
    return {
      ...toProductRow(row),
      functions: row.functions as Record<string, unknown>[],
      versions: versions.rows.map((v) => ({
        version: v.version,
        publishedAt: iso(v.published_at),
        publishedBy: v.published_by,
        functionCount: v.n,
      })),
    };
  },

  async 'product.exportModel'({ query }, ctx) {
    const { db } = ctx.ports;
    const product = (
      await db.query<{ code: string; functions: unknown[] }>('select code, functions from rm_products where id = $1 and tenant_id = $2', [
        query.id,
        callerOf(ctx).tenantId,
      ])
    ).rows[0];
    if (!product) throw new DomainError('NOT_FOUND');
    let functions = product.functions;
    if (query.version) {
      const v = (
        await db.query<{ functions: unknown[] }>('select functions from rm_product_versions where product_id = $1 and version = $2', [
          query.id,
          query.version,
        ])
      ).rows[0];
      if (!v) throw new DomainError('NOT_FOUND');
      functions = v.functions;
    }
    const name = `${product.code}-thing-model${query.version ? `-v${query.version}` : ''}.json`;
    return rawAnswer('application/json; charset=utf-8', JSON.stringify({ functions }, null, 2), name);
  },

  async 'device.list'({ query: q }, ctx) {
    return pageOf(ctx.ports.db, q, await deviceSpec(ctx, q), toDeviceRow);
  },

  async 'device.count'(_input, ctx) {
    const spec = await deviceSpec(ctx, {}, '');
    const row = (
      await ctx.ports.db.query<{ total: number; online: number; offline: number; disabled: number }>(
        `select count(*)::int as total, count(*) filter (where d.status = 'online')::int as online,
           count(*) filter (where d.status = 'offline')::int as offline, count(*) filter (where not d.enabled)::int as disabled
         from rm_devices d where ${spec.where.join(' and ')}`,
        spec.params,
      )
    ).rows[0]!;
    return row;
  },

  async 'device.groupCounts'(_input, ctx) {
    const spec = await deviceSpec(ctx, {}, '');
    return (
      await ctx.ports.db.query<{ groupId: string | null; total: number; online: number }>(
        `select d.group_id as "groupId", count(*)::int as total, count(*) filter (where d.status = 'online')::int as online
         from rm_devices d where ${spec.where.join(' and ')} group by d.group_id`,
        spec.params,
      )
    ).rows;
  },

  async 'device.detail'({ query }, ctx) {
    const { db } = ctx.ports;
    const row = (
      await db.query(
        `select ${deviceSelect}, (select count(*)::int from rm_devices s where s.gateway_id = d.id) as sub_device_count
         from rm_devices d where d.id = $1 and d.tenant_id = $2`,
        [query.id, callerOf(ctx).tenantId],
      )
    ).rows[0];
    if (!row) throw new DomainError('NOT_FOUND');
    await assertInStation(ctx, (row.group_id as string | null) ?? null);
    const model = (
      await db.query<{ functions: Record<string, unknown>[] }>(
        `select coalesce((select v.functions from rm_product_versions v where v.product_id = $1 and v.version = $2),
                         (select p.functions from rm_products p where p.id = $1), '[]') as functions`,
        [row.product_id, row.model_version],
      )
    ).rows[0]!;
    return { ...toDeviceRow(row), functions: model.functions };
  },

  async 'device.export'({ query: q }, ctx) {
    const spec = await deviceSpec(ctx, q);
    const page = await pageOf(ctx.ports.db, { ...q, page: 1, pageSize: EXPORT_LIMIT }, spec, toDeviceRow);
    return csvAnswer(`devices-${new Date().toISOString().slice(0, 10)}.csv`, exportColumns, page.rows, exportHeaders[ctx.lang]);
  },

  async 'device.checkSn'({ query }, ctx) {
    const taken = await ctx.ports.db.query('select 1 from claims where scope = $1 and key = $2', [deviceSnScope, query.sn]);
    return { available: taken.rowCount === 0 };
  },

  async 'device.importReport'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const job = await ctx.ports.db.query('select 1 from device_import_jobs where tenant_id = $1 and job_id = $2', [tenantId, query.jobId]);
    if (job.rowCount === 0) throw new DomainError('NOT_FOUND');
    const faults = await ctx.ports.db.query(
      'select row, sn, field, reason from device_import_faults where tenant_id = $1 and job_id = $2 order by row',
      [tenantId, query.jobId],
    );
    // Reasons are kept without language: the report is in its reader's.
    const rows = faults.rows.map((f) => ({ ...f, reason: importFaultText(String(f.reason), ctx.lang) }));
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

  async 'gateway.list'({ query: q }, ctx) {
    const spec = await deviceSpec(
      ctx,
      { ...q, nodeType: 'gateway' },
      `${deviceSelect}, (select count(*)::int from rm_devices s where s.gateway_id = d.id) as sub_device_count`,
    );
    return pageOf(ctx.ports.db, q, spec, toDeviceRow);
  },

  async 'template.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: `t.*, (select name from rm_products p where p.id = t.product_id) as product_name,
        (select count(*)::int from rm_devices d where d.tenant_id = t.tenant_id and d.template_id = t.id) as device_count`,
      from: 'rm_templates t',
      where: ['t.tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 't.created_at', name: "lower(t.fields->>'name')" },
      defaultSort: 't.created_at',
    };
    if (q.name) spec.where.push(`t.fields->>'name' ilike ${param(spec.params, `%${q.name}%`)}`);
    if (q.productId) spec.where.push(`t.product_id = ${param(spec.params, q.productId)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => {
      const f = r.fields as Record<string, unknown>;
      return {
        id: r.id as string,
        name: f.name as string,
        productId: r.product_id as string,
        productName: (r.product_name as string | null) ?? null,
        protocol: f.protocol as string,
        acquisitionPeriod: f.acquisitionPeriod as number,
        frequency: f.frequency as number,
        storageMode: f.storageMode as string,
        upload: f.upload as string,
        retentionDays: f.retentionDays as number,
        remark: (f.remark as string | null) ?? null,
        variables: r.variables as Record<string, unknown>[],
        deviceCount: r.device_count as number,
        createBy: r.created_by as string,
        createTime: iso(r.created_at),
      };
    });
  },

  async 'mqttConfig.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: `c.*, (select name from rm_devices d where d.id = c.gateway_id) as gateway_name`,
      from: 'rm_mqtt_configs c',
      where: ['c.tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 'c.created_at', name: 'lower(c.name)' },
      defaultSort: 'c.created_at',
    };
    if (q.gatewayId) spec.where.push(`c.gateway_id = ${param(spec.params, q.gatewayId)}`);
    if (q.name) spec.where.push(`c.name ilike ${param(spec.params, `%${q.name}%`)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => ({
      ...(r.fields as Omit<MqttConfigFields, 'password'>),
      id: r.id as string,
      gatewayName: (r.gateway_name as string | null) ?? null,
      hasPassword: r.has_password as boolean,
      createTime: iso(r.created_at),
    }));
  },
};
