import type { DeviceEvent as DeviceOwnEvent, OtaDeviceEvent } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';

/** A device's own events, and the rollout's that change what its row shows (the version it was upgraded to). */
type DeviceEvent = DeviceOwnEvent | Extract<OtaDeviceEvent, { type: 'OtaDeviceSucceeded' }>;
type Created = Extract<StoredEventOf<DeviceEvent>, { type: 'DeviceCreated' }>;

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
    `insert into rm_devices (id, tenant_id, sn, name, product_id, model_version, node_type, group_id, gateway_id, lng, lat, address,
       version, tags, remark, secret_hash, created_by, created_at, updated_at)
     select r.id, r.tenant_id, r.sn, r.name, r.product_id, r.model_version, r.node_type, r.group_id, r.gateway_id, r.lng, r.lat, r.address,
       r.version, coalesce((select array_agg(t) from jsonb_array_elements_text(r.tags) t), '{}'), r.remark, r.secret_hash, r.created_by,
       r.created_at, r.created_at
     from jsonb_to_recordset($1::jsonb) as r(id text, tenant_id text, sn text, name text, product_id text, model_version int, node_type text,
       group_id text, gateway_id text, lng float8, lat float8, address text, version text, tags jsonb, remark text, secret_hash text, created_by text,
       created_at timestamptz)
     on conflict (id) do nothing`,
    [JSON.stringify(rows)],
  );
}

async function applyOne(tx: Sql, event: StoredEventOf<DeviceEvent>): Promise<void> {
  const at = event.metadata.occurredAt;
  const set = (columns: string, params: unknown[]) =>
    tx.query(`update rm_devices set ${columns}, updated_at = $2 where id = $1`, [event.data.deviceId, at, ...params]);
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
      await set('group_id = $3', [event.data.groupId]);
      return;
    case 'DeviceGatewayBound':
      await set('gateway_id = $3', [event.data.gatewayId]);
      return;
    case 'DeviceEnabled':
      await set('enabled = true', []);
      return;
    case 'DeviceDisabled':
      await set('enabled = false', []);
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
      await tx.query('delete from rm_devices where id = $1', [event.data.deviceId]);
      return;
    case 'DeviceWentOnline':
      await tx.query(`update rm_devices set status = 'online', status_at = $2 where id = $1`, [event.data.deviceId, event.data.at]);
      return;
    case 'DeviceWentOffline':
      await tx.query(`update rm_devices set status = 'offline', status_at = $2 where id = $1`, [event.data.deviceId, event.data.at]);
      return;
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
  tables: ['rm_devices'],
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
    create index rm_devices_created on rm_devices (tenant_id, created_at desc);`,
  apply: applyOne,
  // An import appends thousands of DeviceCreated in a row: each run of them is one insert.
  async applyBatch(tx, events) {
    let run: Created[] = [];
    for (const event of events) {
      if (event.type === 'DeviceCreated') {
        run.push(event);
        continue;
      }
      if (run.length > 0) await insertDevices(tx, run);
      run = [];
      await applyOne(tx, event);
    }
    if (run.length > 0) await insertDevices(tx, run);
  },
});
