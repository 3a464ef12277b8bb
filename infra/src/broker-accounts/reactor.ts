import type { DeviceEvent, TenantEvent } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection, type AnyProjection } from '@iot/projections/projection.ts';
import type { BrokerAccounts } from './port.ts';

/**
 * Keeps the broker's device accounts in step with the devices, from the event log: a device created or
 * imported gets an account, a disabled one (or one of a stopped tenant) is kept out, a deleted one loses it.
 * Runs beside the projections, so a crash or a broker that is away resumes from the checkpoint (every call is
 * idempotent); a new deployment replays the log and provisions every device there is. The secret is not in
 * the log (only its hash): it reaches the broker from the create and rotate answers (`withBrokerSecrets`).
 */
export function brokerAccountsReactor(accounts: BrokerAccounts): AnyProjection {
  const deviceOf = async (tx: Sql, deviceId: string) =>
    (
      await tx.query<{ sn: string; tenant_id: string; enabled: boolean }>(
        'select sn, tenant_id, enabled from broker_accounts where device_id = $1',
        [deviceId],
      )
    ).rows[0];
  const tenantStopped = async (tx: Sql, tenantId: string) =>
    (await tx.query('select 1 from broker_stopped_tenants where tenant_id = $1', [tenantId])).rowCount! > 0;

  type Event = StoredEventOf<DeviceEvent | TenantEvent>;
  type Created = Extract<Event, { type: 'DeviceCreated' }>;

  /** Devices created together (an import) are provisioned together: one control message per few hundred. */
  async function provisionAll(tx: Sql, created: Created[]) {
    if (created.length === 0) return;
    await tx.query(
      `insert into broker_accounts (device_id, tenant_id, sn, enabled)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::boolean[]) on conflict (device_id) do nothing`,
      [
        created.map((e) => e.data.deviceId),
        created.map((e) => e.metadata.tenantId),
        created.map((e) => e.data.sn),
        created.map(() => true),
      ],
    );
    await accounts.provision(created.map((e) => ({ sn: e.data.sn, gateway: e.data.nodeType === 'gateway' })));
    const stopped = (
      await tx.query<{ tenant_id: string }>('select tenant_id from broker_stopped_tenants where tenant_id = any($1)', [
        [...new Set(created.map((e) => e.metadata.tenantId))],
      ])
    ).rows.map((r) => r.tenant_id);
    if (stopped.length > 0)
      await accounts.setEnabled(
        created.filter((e) => stopped.includes(e.metadata.tenantId)).map((e) => e.data.sn),
        false,
      );
  }

  async function applyBatch(tx: Sql, events: Event[]) {
    let created: Created[] = [];
    for (const event of events) {
      if (event.type === 'DeviceCreated') {
        created.push(event);
        continue;
      }
      await provisionAll(tx, created);
      created = [];
      switch (event.type) {
        case 'DeviceEnabled':
        case 'DeviceDisabled': {
          const enabled = event.type === 'DeviceEnabled';
          const device = await deviceOf(tx, event.data.deviceId);
          if (!device) break;
          await tx.query('update broker_accounts set enabled = $2 where device_id = $1', [event.data.deviceId, enabled]);
          await accounts.setEnabled([device.sn], enabled && !(await tenantStopped(tx, device.tenant_id)));
          break;
        }
        case 'DeviceSecretRotated': {
          const device = await deviceOf(tx, event.data.deviceId);
          if (device) await accounts.rotated(device.sn);
          break;
        }
        case 'DeviceDeleted': {
          const device = await deviceOf(tx, event.data.deviceId);
          await tx.query('delete from broker_accounts where device_id = $1', [event.data.deviceId]);
          await accounts.remove(device?.sn ?? event.data.sn);
          break;
        }
        case 'TenantStopped':
        case 'TenantStarted': {
          const { tenantId } = event.data;
          const started = event.type === 'TenantStarted';
          if (started) await tx.query('delete from broker_stopped_tenants where tenant_id = $1', [tenantId]);
          else await tx.query('insert into broker_stopped_tenants (tenant_id) values ($1) on conflict do nothing', [tenantId]);
          const devices = await tx.query<{ sn: string }>(
            `select sn from broker_accounts where tenant_id = $1 ${started ? 'and enabled' : ''}`,
            [tenantId],
          );
          await accounts.setEnabled(
            devices.rows.map((d) => d.sn),
            started,
          );
          break;
        }
        default:
          break;
      }
    }
    await provisionAll(tx, created);
  }

  return projection<DeviceEvent | TenantEvent>({
    name: 'reactor-broker-accounts',
    handles: ['DeviceCreated', 'DeviceEnabled', 'DeviceDisabled', 'DeviceSecretRotated', 'DeviceDeleted', 'TenantStopped', 'TenantStarted'],
    schema: `
      create table broker_accounts (
        device_id text primary key,
        tenant_id text not null,
        sn text not null,
        enabled boolean not null
      );
      create index broker_accounts_tenant on broker_accounts (tenant_id);
      create table broker_stopped_tenants (tenant_id text primary key);`,
    tables: ['broker_accounts', 'broker_stopped_tenants'],
    apply: (tx, event) => applyBatch(tx, [event]),
    applyBatch,
  });
}
