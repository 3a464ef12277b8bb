import { deviceSnScope } from '@iot/contracts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { handleCommand, handleNewStreams, type CommandContext, type CommandResult } from '../handler.ts';
import { claimMany, releaseMany, withClaim } from '../shared/claims.ts';
import { deviceDecider, deviceStream, type DeviceCommand } from './decide.ts';
import type { DeviceState } from '@iot/contracts/device/state.ts';

/** What a device is created with: the `CreateDevice` command's fields. */
export type NewDevice = Omit<Extract<DeviceCommand, { type: 'CreateDevice' }>, 'type'>;

interface Stores {
  store: EventStore;
  db: Sql;
}

/** Creates one device: its SN claimed for it (SN_TAKEN when another holds it), then `CreateDevice` decided and appended. */
export function createDevice(ports: Stores, context: CommandContext, device: NewDevice): Promise<CommandResult<DeviceState>> {
  return withClaim(ports.db, { scope: deviceSnScope, key: device.sn, owner: device.deviceId }, 'SN_TAKEN', () =>
    handleCommand(
      ports.store,
      deviceDecider,
      deviceStream(context.tenantId, device.deviceId),
      { type: 'CreateDevice', ...device },
      context,
    ),
  );
}

/** How one device of a bulk create ended: created, its SN held by another owner, or not saved (its claim returned). */
export type BulkCreated =
  | { device: NewDevice; outcome: 'created'; position: string }
  | { device: NewDevice; outcome: 'held'; holder: string | null }
  | { device: NewDevice; outcome: 'lost' };

/**
 * Creates many devices of fresh ids at once (bulk import): every SN claimed in one statement, each device's
 * `CreateDevice` decided on its new stream and the appends handed to the store together (one commit);
 * a claim whose append failed is returned.
 */
export async function createDevices(ports: Stores, context: CommandContext, devices: NewDevice[]): Promise<BulkCreated[]> {
  const claims = devices.map((d) => ({ key: d.sn, owner: d.deviceId }));
  const { took, holders } = await claimMany(ports.db, deviceSnScope, claims);
  const fresh = devices.filter((d) => took.has(d.sn));
  const results = await Promise.allSettled(
    handleNewStreams(
      ports.store,
      deviceDecider,
      fresh.map((d) => ({ stream: deviceStream(context.tenantId, d.deviceId), command: { type: 'CreateDevice' as const, ...d } })),
      context,
    ),
  );
  const outcomes = new Map<string, BulkCreated>();
  results.forEach((r, i) => {
    const device = fresh[i]!;
    outcomes.set(
      device.sn,
      r.status === 'fulfilled' ? { device, outcome: 'created', position: r.value.events.at(-1)!.position } : { device, outcome: 'lost' },
    );
  });
  await releaseMany(
    ports.db,
    deviceSnScope,
    [...outcomes.values()].filter((o) => o.outcome === 'lost').map((o) => ({ key: o.device.sn, owner: o.device.deviceId })),
  );
  return devices.map((device) => outcomes.get(device.sn) ?? { device, outcome: 'held', holder: holders.get(device.sn) ?? null });
}
