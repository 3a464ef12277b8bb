import type { DeviceStatus, NodeType, Page, PageQuery, ThingFunction, deviceSortable } from '@iot/contracts';
import type { DeviceEntry, Reachability } from '@iot/contracts/ports/device-directory.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { groupSubtree } from '../group/read.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A device or gateway as the devices projection keeps it (rm_devices), with the names of what it points at. */
export type DeviceRecord = {
  id: string;
  tenantId: string;
  sn: string;
  name: string;
  productId: string;
  productName: string | null;
  /** The thing-model version it reports against (0: the product's draft, before any publication). */
  modelVersion: number;
  nodeType: NodeType;
  groupId: string | null;
  groupName: string | null;
  gatewayId: string | null;
  gatewayName: string | null;
  status: DeviceStatus;
  enabled: boolean;
  lng: number | null;
  lat: number | null;
  address: string | null;
  version: string | null;
  tags: string[];
  remark: string | null;
  templateId: string | null;
  /** Devices behind it: counted for a gateway's detail and the gateway list, 0 elsewhere. */
  subDeviceCount: number;
  /** Its newest report (the intake's device_reports), else what the read model last recorded. */
  lastReportAt: Date | null;
  /** The creator's username, or their id once the user is gone. */
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
};

const lastReport = '(select r.last_report_at from device_reports r where r.device_id = d.id)';
const subDevices = '(select count(*)::int from rm_devices s where s.tenant_id = d.tenant_id and s.gateway_id = d.id)';
const device = (withSubDevices: boolean) => `d.id, d.tenant_id as "tenantId", d.sn, d.name, d.product_id as "productId",
  (select name from rm_products p where p.id = d.product_id) as "productName", d.model_version as "modelVersion",
  d.node_type as "nodeType", d.group_id as "groupId", (select name from rm_groups g where g.id = d.group_id) as "groupName",
  d.gateway_id as "gatewayId", (select name from rm_devices w where w.id = d.gateway_id) as "gatewayName",
  d.status, d.enabled, d.lng, d.lat, d.address, d.version, d.tags, d.remark, d.template_id as "templateId",
  ${withSubDevices ? subDevices : '0'} as "subDeviceCount", coalesce(${lastReport}, d.last_report_at) as "lastReportAt",
  coalesce((select username from rm_users u where u.id = d.created_by), d.created_by) as "createdBy",
  d.created_at as "createdAt", d.updated_at as "updatedAt"`;

/** A device of the tenant, by id, with its sub-devices counted. */
export async function deviceById(db: Sql, tenantId: string, id: string): Promise<DeviceRecord | null> {
  return (
    (await db.query<DeviceRecord>(`select ${device(true)} from rm_devices d where d.id = $1 and d.tenant_id = $2`, [id, tenantId]))
      .rows[0] ?? null
  );
}

/** What the device list narrows by; `stationId` and `groupId` each to a group's subtree (spec §6). */
export type DeviceFilter = {
  stationId?: string | null;
  groupId?: string;
  name?: string;
  sn?: string;
  productId?: string;
  gatewayId?: string;
  status?: DeviceStatus;
  enabled?: boolean;
  nodeType?: NodeType;
  tag?: string;
};

/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = {
  createTime: 'd.created_at',
  name: 'lower(d.name)',
  sn: 'd.sn',
  status: 'd.status',
  lastReportAt: lastReport,
} satisfies Record<(typeof deviceSortable)[number], string>;

/** The tenant's devices the filter lets through, as a list's where clause. */
async function deviceList(db: Sql, tenantId: string, f: DeviceFilter, select: string): Promise<ListSpec> {
  const spec: ListSpec = {
    select,
    from: 'rm_devices d',
    where: ['d.tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'd.created_at',
  };
  for (const root of [f.stationId, f.groupId]) {
    if (root) spec.where.push(`d.group_id = any(${param(spec.params, await groupSubtree(db, tenantId, root))})`);
  }
  if (f.name) spec.where.push(`d.name ilike ${param(spec.params, `%${f.name}%`)}`);
  if (f.sn) spec.where.push(`d.sn ilike ${param(spec.params, `%${f.sn}%`)}`);
  if (f.productId) spec.where.push(`d.product_id = ${param(spec.params, f.productId)}`);
  if (f.gatewayId) spec.where.push(`d.gateway_id = ${param(spec.params, f.gatewayId)}`);
  if (f.status) spec.where.push(`d.status = ${param(spec.params, f.status)}`);
  if (f.enabled !== undefined) spec.where.push(`d.enabled = ${param(spec.params, f.enabled)}`);
  if (f.nodeType) spec.where.push(`d.node_type = ${param(spec.params, f.nodeType)}`);
  if (f.tag) spec.where.push(`${param(spec.params, f.tag)} = any(d.tags)`);
  return spec;
}

/** A page of the tenant's devices; sub-devices counted when asked (the gateway list). */
export async function devicePage(
  db: Sql,
  tenantId: string,
  filter: DeviceFilter,
  page: PageQuery,
  options: { subDevices?: boolean } = {},
): Promise<Page<DeviceRecord>> {
  return pageRows<DeviceRecord>(db, page, await deviceList(db, tenantId, filter, device(options.subDevices ?? false)));
}

/** The counts of the tenant's groups (the station's subtree when given), from the counters the projection keeps. */
async function countsOfGroups(db: Sql, tenantId: string, filter: Pick<DeviceFilter, 'stationId'>, select: string, tail = '') {
  const params: unknown[] = [tenantId];
  const scope = filter.stationId ? `and group_id = any(${param(params, await groupSubtree(db, tenantId, filter.stationId))})` : '';
  return { sql: `select ${select} from rm_device_counts where tenant_id = $1 ${scope} ${tail}`, params };
}

/** How many of the tenant's devices (in the station) there are, online, offline and disabled. */
export async function deviceCounts(
  db: Sql,
  tenantId: string,
  filter: Pick<DeviceFilter, 'stationId'>,
): Promise<{ total: number; online: number; offline: number; disabled: number }> {
  const { sql, params } = await countsOfGroups(
    db,
    tenantId,
    filter,
    `coalesce(sum(total), 0)::int as total, coalesce(sum(online), 0)::int as online, coalesce(sum(offline), 0)::int as offline,
       coalesce(sum(disabled), 0)::int as disabled`,
  );
  return (await db.query<{ total: number; online: number; offline: number; disabled: number }>(sql, params)).rows[0]!;
}

/** The tenant's devices (in the station) counted by group, all and online; `groupId` null for those in none. */
export async function deviceCountsByGroup(
  db: Sql,
  tenantId: string,
  filter: Pick<DeviceFilter, 'stationId'>,
): Promise<Array<{ groupId: string | null; total: number; online: number }>> {
  const { sql, params } = await countsOfGroups(db, tenantId, filter, `nullif(group_id, '') as "groupId", total, online`, 'and total > 0');
  return (await db.query<{ groupId: string | null; total: number; online: number }>(sql, params)).rows;
}

/** The same counts as `deviceCounts`, counted from the device rows: what the kept counters must always equal. */
export async function deviceRecount(
  db: Sql,
  tenantId: string,
  filter: Pick<DeviceFilter, 'stationId'>,
): Promise<{ total: number; online: number; offline: number; disabled: number }> {
  const spec = await deviceList(db, tenantId, filter, '');
  return (
    await db.query<{ total: number; online: number; offline: number; disabled: number }>(
      `select count(*)::int as total, count(*) filter (where d.status = 'online')::int as online,
         count(*) filter (where d.status = 'offline')::int as offline, count(*) filter (where not d.enabled)::int as disabled
       from rm_devices d where ${spec.where.join(' and ')}`,
      spec.params,
    )
  ).rows[0]!;
}

/** Whether any device of the tenant is in the group. */
export async function anyDeviceInGroup(db: Sql, tenantId: string, groupId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_devices where tenant_id = $1 and group_id = $2 limit 1', [tenantId, groupId])).rowCount > 0;
}

/** Those of `deviceIds` that are devices of the tenant (in one of `groupIds`, when given: a station's subtree). */
export async function devicesOfTenant(db: Sql, tenantId: string, deviceIds: string[], groupIds?: readonly string[]): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    'select id from rm_devices where tenant_id = $1 and id = any($2) and ($3::text[] is null or group_id = any($3))',
    [tenantId, deviceIds, groupIds ? [...groupIds] : null],
  );
  return rows.rows.map((r) => r.id);
}

/** Whether the device is one of the tenant's, of this product. */
export async function deviceIsOfProduct(db: Sql, tenantId: string, deviceId: string, productId: string): Promise<boolean> {
  return (
    (await db.query('select 1 from rm_devices where id = $1 and tenant_id = $2 and product_id = $3', [deviceId, tenantId, productId]))
      .rowCount > 0
  );
}

/** The group a device is in now (null: none, or no such device). */
export async function deviceGroupOf(db: Sql, deviceId: string): Promise<string | null> {
  return (
    (await db.query<{ groupId: string | null }>('select group_id as "groupId" from rm_devices where id = $1', [deviceId])).rows[0]
      ?.groupId ?? null
  );
}

/** How a device of the tenant reaches the platform (null: no such device): what a gateway id is checked by. */
export async function nodeTypeOf(db: Sql, tenantId: string, deviceId: string): Promise<NodeType | null> {
  return (
    (
      await db.query<{ nodeType: NodeType }>('select node_type as "nodeType" from rm_devices where id = $1 and tenant_id = $2', [
        deviceId,
        tenantId,
      ])
    ).rows[0]?.nodeType ?? null
  );
}

/** Whether any device of the tenant is behind the gateway. */
export async function gatewayHasDevices(db: Sql, tenantId: string, gatewayId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_devices where tenant_id = $1 and gateway_id = $2 limit 1', [tenantId, gatewayId])).rowCount > 0;
}

/** Whether any device of the tenant is of the product. */
export async function productHasDevices(db: Sql, tenantId: string, productId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_devices where tenant_id = $1 and product_id = $2 limit 1', [tenantId, productId])).rowCount > 0;
}

/** The ids of the tenant's devices of a product, at most `limit`, in id order. */
export async function deviceIdsOfProduct(db: Sql, tenantId: string, productId: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>('select id from rm_devices where tenant_id = $1 and product_id = $2 order by id limit $3', [
    tenantId,
    productId,
    limit,
  ]);
  return rows.rows.map((r) => r.id);
}

/**
 * The thing model a device bound to `modelVersion` of a product reports against: that published version, or the
 * product's draft before any publication (version 0); empty when the product or version is not there. The one
 * place this is answered: the query side asks it here, the write side and the intake through their ports.
 */
export async function thingModelOf(db: Sql, tenantId: string, productId: string, modelVersion: number): Promise<ThingFunction[]> {
  const row = (
    await db.query<{ functions: ThingFunction[] | null }>(
      modelVersion > 0
        ? `select v.functions from rm_product_versions v join rm_products p on p.id = v.product_id
           where v.product_id = $1 and p.tenant_id = $2 and v.version = $3`
        : 'select functions from rm_products where id = $1 and tenant_id = $2',
      modelVersion > 0 ? [productId, tenantId, modelVersion] : [productId, tenantId],
    )
  ).rows[0];
  return row?.functions ?? [];
}

// ---------------------------------------------------------------- the intake's look-ups (the DeviceDirectory port)
const ENTRY = `select d.id as "deviceId", d.tenant_id as "tenantId", d.sn, d.name, d.product_id as "productId",
  d.model_version as "modelVersion", d.node_type as "nodeType", d.gateway_id as "gatewayId", d.group_id as "groupId",
  d.secret_hash as "secretHash", d.enabled, coalesce(t.status = 'approved', false) as "tenantActive",
  (select (tp.fields->>'retentionDays')::int from rm_templates tp where tp.id = d.template_id) as "retentionDays"
  from rm_devices d left join rm_tenants t on t.id = d.tenant_id`;

/** The device with this SN, platform-wide, with its credentials and rights. */
export async function deviceEntryBySn(db: Sql, sn: string): Promise<DeviceEntry | null> {
  return (await db.query<DeviceEntry>(`${ENTRY} where d.sn = $1`, [sn])).rows[0] ?? null;
}

/** The device whose secret has this SHA-256, with its credentials and rights. */
export async function deviceEntryBySecretHash(db: Sql, secretHash: string): Promise<DeviceEntry | null> {
  return (await db.query<DeviceEntry>(`${ENTRY} where d.secret_hash = $1`, [secretHash])).rows[0] ?? null;
}

/** A device behind the gateway, by SN or by name. */
export async function subDeviceEntry(db: Sql, tenantId: string, gatewayId: string, key: string): Promise<DeviceEntry | null> {
  return (
    (
      await db.query<DeviceEntry>(`${ENTRY} where d.tenant_id = $1 and d.gateway_id = $2 and (d.sn = $3 or d.name = $3) limit 1`, [
        tenantId,
        gatewayId,
        key,
      ])
    ).rows[0] ?? null
  );
}

/** Every device behind the gateway. */
export async function subDeviceEntries(db: Sql, tenantId: string, gatewayId: string): Promise<DeviceEntry[]> {
  return (await db.query<DeviceEntry>(`${ENTRY} where d.tenant_id = $1 and d.gateway_id = $2`, [tenantId, gatewayId])).rows;
}

/** Devices recorded online, of a tenant or one device when named; none on a first start, before the table exists. */
export async function onlineDeviceEntries(db: Sql, of: { tenantId?: string; deviceId?: string }): Promise<DeviceEntry[]> {
  if (!(await db.query<{ t: string | null }>(`select to_regclass('rm_devices') as t`)).rows[0]?.t) return [];
  return (
    await db.query<DeviceEntry>(
      `${ENTRY} where d.status = 'online' and ($1::text is null or d.tenant_id = $1) and ($2::text is null or d.id = $2)`,
      [of.tenantId ?? null, of.deviceId ?? null],
    )
  ).rows;
}

/** Whether an enabled device is online, and its gateway (null: no such enabled device). */
export async function reachabilityOf(db: Sql, deviceId: string): Promise<Reachability | null> {
  return (
    (
      await db.query<Reachability>(
        `select d.status = 'online' as online, g.sn as "gatewaySn", coalesce(g.status = 'online', false) as "gatewayOnline"
         from rm_devices d left join rm_devices g on g.id = d.gateway_id where d.id = $1 and d.enabled`,
        [deviceId],
      )
    ).rows[0] ?? null
  );
}

/**
 * Devices recorded online at least `afterMs` ago that no process heard from since (by when their reports arrived,
 * the intake's device_reports, which reach the table a second after the device went online), at most `limit`.
 */
export async function silentOnlineEntries(db: Sql, afterMs: number, limit: number): Promise<DeviceEntry[]> {
  return (
    await db.query<DeviceEntry>(
      `${ENTRY} where d.status = 'online' and d.status_at < now() - make_interval(secs => $1::float8 / 1000) and not exists
         (select 1 from device_reports r where r.device_id = d.id and r.seen_at > now() - make_interval(secs => $1::float8 / 1000))
       limit $2`,
      [afterMs, limit],
    )
  ).rows;
}

/**
 * The key each device of the tenant (of one product, or all) counts under in a statistic: its group or its
 * product. Devices without a group count under no group.
 */
export async function deviceStatKeys(
  db: Sql,
  tenantId: string,
  productId: string | null,
  by: 'group' | 'product',
): Promise<Record<string, string>> {
  const rows = await db.query<{ id: string; key: string }>(
    `select id, ${by === 'group' ? 'group_id' : 'product_id'} as key from rm_devices
     where tenant_id = $1 and ($2::text is null or product_id = $2) and ${by === 'group' ? 'group_id is not null' : 'true'}`,
    [tenantId, productId],
  );
  return Object.fromEntries(rows.rows.map((r) => [r.id, r.key]));
}

/** A device's fields as a rule chain's enrich node adds them to a message (never its secret); null when the tenant has none such. */
export async function deviceForRules(db: Sql, tenantId: string, deviceId: string): Promise<Record<string, unknown> | null> {
  const rows = await db.query<Record<string, unknown>>(
    `select id, sn, name, product_id as "productId", group_id as "groupId", gateway_id as "gatewayId", node_type as "nodeType",
       status, enabled, lng, lat, address, version, tags, remark
     from rm_devices where tenant_id = $1 and id = $2`,
    [tenantId, deviceId],
  );
  return rows.rows[0] ?? null;
}

/** A product's fields as a rule chain's enrich node adds them to a message (not its thing model). */
export async function productForRules(db: Sql, tenantId: string, productId: string): Promise<Record<string, unknown> | null> {
  const rows = await db.query<Record<string, unknown>>(
    `select id, name, code, type, category, model, manufacturer, protocol, status from rm_products where tenant_id = $1 and id = $2`,
    [tenantId, productId],
  );
  return rows.rows[0] ?? null;
}

/**
 * The tenant's devices an OTA rollout targets (issue 21): a product's (only those at `version` when given), those of
 * a group's subtree (`groupIds`), or a list of ids; at most `limit`, by SN, so that waves go out in a stable order.
 */
export async function devicesForRollout(
  db: Sql,
  tenantId: string,
  target: { productId: string; version?: string } | { groupIds: string[] } | { deviceIds: string[] },
  limit: number,
): Promise<Array<{ deviceId: string; sn: string; version: string | null }>> {
  const where =
    'productId' in target
      ? { sql: 'product_id = $2 and ($3::text is null or version = $3)', params: [target.productId, target.version ?? null] }
      : 'groupIds' in target
        ? { sql: 'group_id = any($2)', params: [target.groupIds] }
        : { sql: 'id = any($2)', params: [target.deviceIds] };
  const rows = await db.query<{ deviceId: string; sn: string; version: string | null }>(
    `select id as "deviceId", sn, version from rm_devices where tenant_id = $1 and ${where.sql} order by sn limit ${Number(limit)}`,
    [tenantId, ...where.params],
  );
  return rows.rows;
}

/** A device as a report names it: its serial number, name and thing model. */
export type ReportDevice = { id: string; sn: string; name: string; productId: string; modelVersion: number };

/**
 * The tenant's devices a report covers: the ids picked (those of the tenant), or every device of a group's subtree,
 * each narrowed to the caller's station (spec §6 `stationId`); in serial number order, at most `limit`.
 */
export async function devicesForReport(
  db: Sql,
  tenantId: string,
  of: { deviceIds?: readonly string[]; groupId?: string | null; stationId?: string | null },
  limit: number,
): Promise<ReportDevice[]> {
  const where = ['d.tenant_id = $1'];
  const params: unknown[] = [tenantId];
  if (of.deviceIds && of.deviceIds.length > 0) where.push(`d.id = any(${param(params, [...of.deviceIds])})`);
  for (const root of [of.groupId, of.stationId]) {
    if (root) where.push(`d.group_id = any(${param(params, await groupSubtree(db, tenantId, root))})`);
  }
  const rows = await db.query<ReportDevice>(
    `select d.id, d.sn, d.name, d.product_id as "productId", d.model_version as "modelVersion"
     from rm_devices d where ${where.join(' and ')} order by d.sn limit ${param(params, limit)}`,
    params,
  );
  return rows.rows;
}

// What device import and the broker's account hand-over ask by name or by id.

/** A product as a device is created from it: its type and latest published thing-model version. */
export type ProductForDevice = {
  id: string;
  code: string;
  name: string;
  nodeType: NodeType;
  modelVersion: number;
};

/** The tenant's products, with what a device of theirs is created from. */
export async function productsForDevices(db: Sql, tenantId: string): Promise<ProductForDevice[]> {
  return (
    await db.query<ProductForDevice>(
      'select id, code, name, type as "nodeType", model_version as "modelVersion" from rm_products where tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

/** The node type of a product of the tenant (null: no such product). */
export async function productNodeType(db: Sql, tenantId: string, productId: string): Promise<NodeType | null> {
  return (
    (
      await db.query<{ nodeType: NodeType }>('select type as "nodeType" from rm_products where id = $1 and tenant_id = $2', [
        productId,
        tenantId,
      ])
    ).rows[0]?.nodeType ?? null
  );
}

/** The tenant's devices among these SNs, with their node type. */
export async function devicesBySn(
  db: Sql,
  tenantId: string,
  sns: string[],
): Promise<Array<{ id: string; sn: string; nodeType: NodeType }>> {
  if (sns.length === 0) return [];
  return (
    await db.query<{ id: string; sn: string; nodeType: NodeType }>(
      'select id, sn, node_type as "nodeType" from rm_devices where tenant_id = $1 and sn = any($2)',
      [tenantId, sns],
    )
  ).rows;
}

/**
 * A station's meters: the ids of the tenant's devices in these groups (the station's subtree) whose product's thing
 * model has the variable (a cumulative energy counter), of one product when told.
 */
export async function metersInGroups(
  db: Sql,
  tenantId: string,
  groupIds: readonly string[],
  variable: string,
  productId?: string,
): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `select d.id from rm_devices d join rm_products p on p.id = d.product_id
     where d.tenant_id = $1 and d.group_id = any($2) and ($3::text is null or d.product_id = $3)
       and exists (select 1 from jsonb_array_elements(p.functions) f where f->>'identifier' = $4)
     order by d.id`,
    [tenantId, [...groupIds], productId ?? null, variable],
  );
  return rows.rows.map((r) => r.id);
}
