import { DomainError, type DeviceEvent, type DeviceRoutes, type TimelineEntry } from '@iot/contracts';
import {
  evolveDevice,
  evolveProduct,
  initialDeviceState,
  initialProductState,
  isDeviceEvent,
  isProductEvent,
  type DeviceState,
} from '@iot/contracts/device/state.ts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { readStreamOf, streamName, type EventStore, type StoredEvent, type StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import { sameValue } from '@iot/contracts/same-value.ts';
import { thingModelOf } from '@iot/projections/device/read.ts';
import { usernamesById } from '@iot/projections/user/read.ts';
import { assertInStation } from '../shared/station.ts';

/** What an auditor sees of a device: every field but its secret, which shows only as rotated or not. */
const viewOf = (d: DeviceState) => ({
  sn: d.sn,
  name: d.name,
  productId: d.productId,
  modelVersion: d.modelVersion,
  nodeType: d.nodeType,
  groupId: d.groupId,
  gatewayId: d.gatewayId,
  location: d.location,
  version: d.version,
  tags: d.tags,
  remark: d.remark,
  enabled: d.enabled,
  templateId: d.templateId,
  secretRotated: d.secretRotated,
  online: d.online,
  deleted: d.deleted,
});

const deviceOf = (history: StoredEventOf<DeviceEvent>[]) => history.reduce(evolveDevice, initialDeviceState);

const productAt = async (store: EventStore, tenantId: string, productId: string, toTime: Date) =>
  (await readStreamOf(store, streamName('product', tenantId, productId), isProductEvent, { toTime })).reduce(
    evolveProduct,
    initialProductState,
  );

/** The group a device's stream leaves it in (its last one, once deleted): what the caller's station narrows by. */
export const groupOfDevice = (history: StoredEventOf<DeviceEvent>[]): string | null => deviceOf(history).groupId;

/** A live device of the caller's tenant and station: its events, and the thing model it reports against now. */
export async function deviceWithModel(ctx: RequestContext, deviceId: string) {
  const { tenantId } = callerOf(ctx);
  const history = await readStreamOf(ctx.ports.store, streamName('device', tenantId, deviceId), isDeviceEvent);
  const device = deviceOf(history);
  if (!device.exists || device.deleted) throw new DomainError('NOT_FOUND');
  await assertInStation(ctx, device.groupId);
  return { history, functions: await thingModelOf(ctx.ports.db, tenantId, device.productId!, device.modelVersion) };
}

/** The fields an event changed: before and after, by field, as an auditor reads them. */
function changesOf(before: Record<string, unknown>, after: Record<string, unknown>) {
  return Object.keys({ ...before, ...after })
    .filter((field) => !sameValue(before[field] ?? null, after[field] ?? null))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

/**
 * The events of a stream read whole that were recorded at or before `at`, as the store's `toTime` read answers:
 * told from the one read, and read again with `toTime` only when an event was recorded in the very millisecond
 * of `at` (the store keeps finer times than a Date, so only it can tell that event's side of the instant).
 */
async function eventsUpTo<T extends StoredEvent>(
  store: EventStore,
  stream: string,
  isOf: (event: StoredEvent) => event is T,
  whole: T[],
  at: Date,
): Promise<T[]> {
  const instant = at.getTime();
  if (whole.some((e) => e.recordedAt.getTime() === instant)) return readStreamOf(store, stream, isOf, { toTime: at });
  return whole.filter((e) => e.recordedAt.getTime() < instant);
}

/**
 * A device's events up to an instant, for a caller narrowed to a station: the station goes by where the device is
 * now, whatever the instant asked for, so the whole stream is read (once) and the instant's part told from it.
 */
async function asOfInStation(ctx: RequestContext, stream: string, at: Date): Promise<StoredEventOf<DeviceEvent>[]> {
  const whole = await readStreamOf(ctx.ports.store, stream, isDeviceEvent);
  if (whole.length === 0) throw new DomainError('NOT_FOUND');
  await assertInStation(ctx, groupOfDevice(whole));
  return eventsUpTo(ctx.ports.store, stream, isDeviceEvent, whole, at);
}

/** A device's history, newest first: who changed what, with each changed field before and after. */
async function deviceTimeline(ctx: RequestContext, deviceId: string): Promise<TimelineEntry[]> {
  const history = await readStreamOf(ctx.ports.store, streamName('device', callerOf(ctx).tenantId, deviceId), isDeviceEvent);
  if (history.length === 0) throw new DomainError('NOT_FOUND');
  await assertInStation(ctx, groupOfDevice(history));
  const names = await usernamesById(ctx.ports.db, [...new Set(history.map((e) => e.metadata.actor.id))]);
  let state = initialDeviceState;
  const entries: TimelineEntry[] = [];
  for (const event of history) {
    const next = evolveDevice(state, event);
    entries.push({
      version: event.version,
      eventType: event.type,
      occurredAt: event.metadata.occurredAt,
      actorKind: event.metadata.actor.kind,
      actorId: event.metadata.actor.id,
      actorName: names.get(event.metadata.actor.id) ?? null,
      changes: changesOf(state.exists ? viewOf(state) : {}, viewOf(next)),
    });
    state = next;
  }
  return entries.reverse();
}

/** Reads of a device's history: its timeline, and the device with its thing model as they were at an instant. */
export const deviceHistoryHandlers: Pick<Handlers<DeviceRoutes>, 'device.timeline' | 'device.asOf'> = {
  'device.timeline': ({ query }, ctx) => deviceTimeline(ctx, query.id),

  async 'device.asOf'({ query }, ctx) {
    const { tenantId, stationId } = callerOf(ctx);
    const at = new Date(query.at);
    const stream = streamName('device', tenantId, query.id);
    const history = stationId
      ? await asOfInStation(ctx, stream, at)
      : await readStreamOf(ctx.ports.store, stream, isDeviceEvent, { toTime: at });
    // A device created after the instant is found (it did not exist then); an unknown one is not.
    if (history.length === 0 && (await readStreamOf(ctx.ports.store, stream, isDeviceEvent, { limit: 1 })).length === 0)
      throw new DomainError('NOT_FOUND');
    const device = deviceOf(history);
    let product = null;
    if (device.exists && device.productId) {
      const p = await productAt(ctx.ports.store, tenantId, device.productId, at);
      const { modelVersion } = device;
      if (p.exists)
        product = {
          name: p.fields!.name,
          status: p.deleted ? 'deleted' : p.published ? 'published' : 'unpublished',
          modelVersion,
          // The device reports against its bound version; before any publication, the draft of that instant.
          functions: (modelVersion > 0 ? p.versions[modelVersion - 1] : undefined) ?? p.functions,
        };
    }
    return {
      at: at.toISOString(),
      version: history.at(-1)?.version ?? 0,
      exists: device.exists && !device.deleted,
      device: device.exists ? viewOf(device) : null,
      product,
    };
  },
};
