import type { DeviceEvent as DeviceOwnEvent, OtaDeviceEvent } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';

/** A device's own events, and the rollout's that change what its row shows (the version it was upgraded to). */
type DeviceEvent = DeviceOwnEvent | Extract<OtaDeviceEvent, { type: 'OtaDeviceSucceeded' }>;
type Created = Extract<StoredEventOf<DeviceEvent>, { type: 'DeviceCreated' }>;

/**
 * How many devices each group of a tenant holds (group '' for none), online, offline and disabled: what the home
 * dashboard and the group tree read in O(groups) instead of counting the fleet. Every statement of this projection that
 * adds, removes or changes a counted column of rm_devices moves the counters by its delta in the same statement, so the
 * runner's transaction holds both (no triggers: the projection is the one writer of its rows).
 */
const deviceCountsColumns = `
      tenant_id text not null,
      group_id text not null,
      total int not null default 0,
      online int not null default 0,
      offline int not null default 0,
      disabled int not null default 0,
      primary key (tenant_id, group_id)`;
/**
 * The counted columns of rows a statement added (sign 1) and removed (sign -1), summed per tenant and group and added
 * to the counters: an upsert of `+ delta`, which another transaction's upsert of the same row waits for and adds to,
 * never overwrites. Ordered, so that two statements lock shared counter rows in the same order.
 */
const countDelta = (rows: string) => `
      insert into rm_device_counts as c (tenant_id, group_id, total, online, offline, disabled)
      select tenant_id, coalesce(group_id, ''), sum(sign), sum(sign * (status = 'online')::int), sum(sign * (status = 'offline')::int),
        sum(sign * (not enabled)::int)
      from (${rows}) r group by 1, 2
      having sum(sign) <> 0 or sum(sign * (status = 'online')::int) <> 0 or sum(sign * (status = 'offline')::int) <> 0
        or sum(sign * (not enabled)::int) <> 0
      order by 1, 2
      on conflict (tenant_id, group_id) do update set total = c.total + excluded.total, online = c.online + excluded.online,
        offline = c.offline + excluded.offline, disabled = c.disabled + excluded.disabled`;
// An update joins the table to itself as `o`: `o` is the row as the statement found it, `d` as it leaves it.
const changedColumns = `d.tenant_id, d.group_id, d.status, d.enabled,
         o.tenant_id as old_tenant_id, o.group_id as old_group_id, o.status as old_status, o.enabled as old_enabled`;
const beforeAndAfter = `select tenant_id, group_id, status, enabled, 1 as sign from changed
      union all select old_tenant_id, old_group_id, old_status, old_enabled, -1 from changed`;
/** The counters counted from the rows: what a migration starts them from. */
const deviceRecountSql = `
      delete from rm_device_counts;
      insert into rm_device_counts (tenant_id, group_id, total, online, offline, disabled)
      select tenant_id, coalesce(group_id, ''), count(*), count(*) filter (where status = 'online'),
        count(*) filter (where status = 'offline'), count(*) filter (where not enabled)
      from rm_devices group by 1, 2;`;

/** Many devices created at once (an import) go in as one insert. */
async function insertDevices(tx: Sql, events: Created[]): Promise<void> {
  const rows = events.map((e) => ({
    id: e.data.deviceId,
    tenant_id: e.metadata.tenantId,
    sn: e.data.sn,
    name: e.data.name,
    product_id: e.data.productId,
    model_version: e.data.modelVersion,
    node_type: e.data.nodeType,
    group_id: e.data.groupId,
    gateway_id: e.data.gatewayId,
    lng: e.data.location.lng ?? null,
    lat: e.data.location.lat ?? null,
    address: e.data.location.address ?? null,
    version: e.data.version,
    tags: e.data.tags,
    remark: e.data.remark,
    secret_hash: e.data.secretHash,
    created_by: e.metadata.actor.id,
    created_at: e.metadata.occurredAt,
  }));
  await tx.query(
    `with inserted as (insert into rm_devices (id, tenant_id, sn, name, product_id, model_version, node_type, group_id, gateway_id, lng, lat, address,
       version, tags, remark, secret_hash, created_by, created_at, updated_at)
     select r.id, r.tenant_id, r.sn, r.name, r.product_id, r.model_version, r.node_type, r.group_id, r.gateway_id, r.lng, r.lat, r.address,
       r.version, coalesce(r.tags, '{}'), r.remark, r.secret_hash, r.created_by,
       r.created_at, r.created_at
     from jsonb_to_recordset($1::jsonb) as r(id text, tenant_id text, sn text, name text, product_id text, model_version int, node_type text,
       group_id text, gateway_id text, lng float8, lat float8, address text, version text, tags text[], remark text, secret_hash text, created_by text,
       created_at timestamptz)
     on conflict (id) do nothing
     returning tenant_id, group_id, status, enabled)
     ${countDelta('select tenant_id, group_id, status, enabled, 1 as sign from inserted')}`,
    [JSON.stringify(rows)],
  );
}

type Presence = Extract<StoredEventOf<DeviceEvent>, { type: 'DeviceWentOnline' | 'DeviceWentOffline' }>;

/** Presence events in log order as one update: each device takes its last one. */
async function setPresence(tx: Sql, events: Presence[]): Promise<void> {
  const last = new Map(events.map((e) => [e.data.deviceId, e]));
  const rows = [...last.values()].map((e) => ({
    id: e.data.deviceId,
    status: e.type === 'DeviceWentOnline' ? 'online' : 'offline',
    at: e.data.at,
  }));
  await tx.query(
    `with changed as (update rm_devices d set status = r.status, status_at = r.at
       from jsonb_to_recordset($1::jsonb) as r(id text, status text, at timestamptz), rm_devices o where d.id = r.id and o.id = d.id
       returning ${changedColumns})
     ${countDelta(beforeAndAfter)}`,
    [JSON.stringify(rows)],
  );
}

async function applyOne(tx: Sql, event: StoredEventOf<DeviceEvent>): Promise<void> {
  const at = event.metadata.occurredAt;
  const set = (columns: string, params: unknown[]) =>
    tx.query(`update rm_devices set ${columns}, updated_at = $2 where id = $1`, [event.data.deviceId, at, ...params]);
  // For the columns the counters count (group, enabled): the counters move with the row.
  const setCounted = (columns: string, params: unknown[]) =>
    tx.query(
      `with changed as (update rm_devices d set ${columns}, updated_at = $2 from rm_devices o where d.id = $1 and o.id = d.id
         returning ${changedColumns})
       ${countDelta(beforeAndAfter)}`,
      [event.data.deviceId, at, ...params],
    );
  switch (event.type) {
    case 'DeviceCreated':
      return insertDevices(tx, [event]);
    case 'DeviceUpdated': {
      const d = event.data;
      await set('name = $3, lng = $4, lat = $5, address = $6, version = $7, tags = $8, remark = $9', [
        d.name,
        d.location.lng ?? null,
        d.location.lat ?? null,
        d.location.address ?? null,
        d.version,
        d.tags,
        d.remark,
      ]);
      return;
    }
    case 'DeviceMoved':
      await setCounted('group_id = $3', [event.data.groupId]);
      return;
    case 'DeviceGatewayBound':
      await set('gateway_id = $3', [event.data.gatewayId]);
      return;
    case 'DeviceEnabled':
      await setCounted('enabled = true', []);
      return;
    case 'DeviceDisabled':
      await setCounted('enabled = false', []);
      return;
    case 'DeviceTemplateApplied':
      await set('template_id = $3', [event.data.templateId]);
      return;
    case 'DeviceModelUpgraded':
      await set('model_version = $3', [event.data.modelVersion]);
      return;
    case 'DeviceSecretRotated':
      await set('secret_rotated_at = $2, secret_hash = $3', [event.data.secretHash]);
      return;
    case 'DeviceDeleted':
      await tx.query(
        `with changed as (delete from rm_devices where id = $1 returning tenant_id, group_id, status, enabled)
         ${countDelta('select tenant_id, group_id, status, enabled, -1 as sign from changed')}`,
        [event.data.deviceId],
      );
      return;
    case 'DeviceWentOnline':
    case 'DeviceWentOffline':
      return setPresence(tx, [event]);
    // The version a rollout upgraded the device to (issue 21): what the device list shows.
    case 'OtaDeviceSucceeded':
      if (event.data.version !== null) await set('version = $3', [event.data.version]);
      return;
  }
}

/**
 * Devices and gateways of every tenant: the device list, its filters (group subtree, status, product) and
 * counts. Status and last report come from the telemetry side (issue 11); the columns wait for it.
 */
export const devicesProjection = projection<DeviceEvent>({
  name: 'devices',
  handles: [
    'DeviceCreated',
    'DeviceUpdated',
    'DeviceMoved',
    'DeviceGatewayBound',
    'DeviceSecretRotated',
    'DeviceEnabled',
    'DeviceDisabled',
    'DeviceTemplateApplied',
    'DeviceModelUpgraded',
    'DeviceDeleted',
    'DeviceWentOnline',
    'DeviceWentOffline',
    'OtaDeviceSucceeded',
  ],
  tables: ['rm_devices', 'rm_device_counts'],
  schema: `
    create table rm_devices (
      id text primary key,
      tenant_id text not null,
      sn text not null,
      name text not null,
      product_id text not null,
      model_version int not null,
      node_type text not null,
      group_id text,
      gateway_id text,
      status text not null default 'offline',
      enabled boolean not null default true,
      lng float8,
      lat float8,
      address text,
      version text,
      tags text[] not null default '{}',
      remark text,
      template_id text,
      last_report_at timestamptz,
      status_at timestamptz,
      secret_rotated_at timestamptz,
      -- SHA-256 of the device secret: what MQTT authentication looks a device up by.
      secret_hash text not null default '',
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_devices_name on rm_devices (tenant_id, lower(name), id);
    create index rm_devices_group on rm_devices (tenant_id, group_id, lower(name));
    create index rm_devices_status on rm_devices (tenant_id, status, lower(name));
    -- The list's total counts a group subtree with a status: an index-only count, not a scan of the fleet.
    create index rm_devices_status_group on rm_devices (tenant_id, status, group_id);
    create index rm_devices_product on rm_devices (tenant_id, product_id);
    create index rm_devices_gateway on rm_devices (tenant_id, gateway_id) where gateway_id is not null;
    create index rm_devices_sn on rm_devices (sn);
    create index rm_devices_secret on rm_devices (secret_hash);
    create index rm_devices_created on rm_devices (tenant_id, created_at desc);
    create table rm_device_counts (${deviceCountsColumns});`,
  migrations: [
    {
      version: 2,
      name: 'device counts per tenant and group (the home dashboard), counted once from the rows',
      // Before version 3 this also created the triggers that kept the counters; version 3 drops them where they exist.
      sql: `create table if not exists rm_device_counts (${deviceCountsColumns});
        ${deviceRecountSql}`,
    },
    {
      version: 3,
      name: 'device counts kept by the projection, not by triggers: triggers dropped, counters recounted from the rows',
      sql: `drop trigger if exists rm_device_counts_insert on rm_devices;
        drop trigger if exists rm_device_counts_update on rm_devices;
        drop trigger if exists rm_device_counts_delete on rm_devices;
        drop function if exists public.rm_device_counts_moved();
        ${deviceRecountSql}`,
    },
    {
      version: 4,
      name: 'the status index sorted by name, which the list answers from the name or status-and-group index',
      // Written on every device insert (100,000 in a 100k import): a status filter is led by (tenant, status, group),
      // and a sort by name with it walks rm_devices_name, so no query needs its own.
      sql: 'drop index if exists rm_devices_status;',
    },
  ],
  apply: applyOne,
  // An import appends thousands of DeviceCreated in a row, a broker restart thousands of presence events: each run of
  // them is one statement.
  async applyBatch(tx, events) {
    let created: Created[] = [];
    let presence: Presence[] = [];
    const flush = async () => {
      if (created.length > 0) await insertDevices(tx, created);
      if (presence.length > 0) await setPresence(tx, presence);
      created = [];
      presence = [];
    };
    for (const event of events) {
      if (event.type === 'DeviceCreated' && presence.length === 0) created.push(event);
      else if ((event.type === 'DeviceWentOnline' || event.type === 'DeviceWentOffline') && created.length === 0) presence.push(event);
      else {
        await flush();
        if (event.type === 'DeviceCreated') created.push(event);
        else if (event.type === 'DeviceWentOnline' || event.type === 'DeviceWentOffline') presence.push(event);
        else await applyOne(tx, event);
      }
    }
    await flush();
  },
});
