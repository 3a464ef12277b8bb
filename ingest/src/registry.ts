import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { ThingFunction } from '@iot/contracts';
import type { DeviceDirectory, DeviceEntry, DeviceRef } from '@iot/contracts/ports/device-directory.ts';

export type { DeviceRef };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A secret's SHA-256 as bytes (one-shot: no Hash object a request), compared in constant time with the bytes of the hash the read model holds. */
const digestOf = (text: string) => hash('sha256', text, 'buffer');
const sameDigest = (a: Buffer | null, b: Buffer) => a !== null && a.length === b.length && timingSafeEqual(a, b);

/**
 * Device look-ups for the intake through the device directory port (the read models): credentials at connect
 * (SN and secret, or the secret alone as a ThingsBoard access token, found by its SHA-256), sub-devices of a
 * gateway, and thing models.
 * A published version never changes, so its model is kept; the draft (version 0) only for a few seconds.
 */
export function createDeviceRegistry(
  directory: DeviceDirectory,
  options: { draftTtlMs?: number; deviceTtlMs?: number; missTtlMs?: number; maxDevices?: number; lateMs?: number } = {},
) {
  const models = new Map<string, { at: number; model: Map<string, ThingFunction> }>();
  const draftTtl = options.draftTtlMs ?? 5_000;
  /**
   * Devices by SN, for messages that name their device (every message over an external broker): kept
   * `deviceTtlMs`, and forgotten at once when their device or tenant changes (`forget`, from the event log).
   */
  const devices = new Map<string, { at: number; device: DeviceRef | null }>();
  const deviceTtl = options.deviceTtlMs ?? 60_000;
  /**
   * An SN no device has is kept as a miss for a moment only (a device retrying before it exists asks the read model
   * at most once a `missTtlMs`): a device created meanwhile is let in at its next attempt, without the log's
   * `DeviceCreated` followed here (a 100k-device import is 100,000 of them, each read whole from PostgreSQL).
   */
  const missTtl = Math.min(options.missTtlMs ?? 2_000, deviceTtl);
  const fresh = (at: number, known: boolean) => Date.now() - at < (known ? deviceTtl : missTtl);
  const maxDevices = options.maxDevices ?? 100_000;
  const refOf = ({ secretHash: _s, enabled: _e, tenantActive: _t, ...ref }: DeviceEntry): DeviceRef => ref;
  /**
   * What the event log said lately of devices and tenants that lost or regained their rights, ahead of the read
   * model (its projection may lag behind the event a moment): a device cut at its disable must not be let in
   * again by a read model that has not applied the disable yet. Kept `lateMs`, beyond any projection lag.
   */
  const lately = new Map<string, { at: number; enabled?: boolean; deleted?: boolean; secretHash?: string; tenantActive?: boolean }>();
  const lateMs = options.lateMs ?? 10 * 60_000;
  const latest = (key: string) => {
    const entry = lately.get(key);
    if (!entry || Date.now() - entry.at <= lateMs) return entry;
    lately.delete(key);
    return undefined;
  };
  const usable = (row: DeviceEntry | null | undefined): row is DeviceEntry => {
    if (!row?.enabled || !row.tenantActive) return false;
    const device = latest(`device:${row.deviceId}`);
    const tenant = latest(`tenant:${row.tenantId}`);
    if (device?.deleted || device?.enabled === false || tenant?.tenantActive === false) return false;
    return device?.secretHash === undefined || device.secretHash === row.secretHash;
  };
  const learn = (key: string, change: { enabled?: boolean; deleted?: boolean; secretHash?: string; tenantActive?: boolean }) => {
    lately.delete(key);
    lately.set(key, { ...latest(key), ...change, at: Date.now() });
    if (lately.size > maxDevices) lately.delete(lately.keys().next().value!);
  };
  let forgotAt = 0;
  /**
   * Credentials by SN, as the read model had them: an HTTP report authenticates on every request, and a query per
   * request was most of its cost. Kept `deviceTtlMs` and forgotten with the device (`forget`); `usable` still
   * takes the event log's latest word (a disable, a new secret) over a kept entry at every use.
   */
  interface Entry {
    at: number;
    row: DeviceEntry | null;
    /** The secret's hash as bytes (decoded once, not at every request), and the device as the intake sees it. */
    digest: Buffer | null;
    ref: DeviceRef | null;
  }
  const entries = new Map<string, Entry>();
  const entryOf = (at: number, row: DeviceEntry | null): Entry => ({
    at,
    row,
    digest: row && /^[0-9a-f]{64}$/.test(row.secretHash) ? Buffer.from(row.secretHash, 'hex') : null,
    ref: row && refOf(row),
  });
  /**
   * The SN a device's kept look-ups are under, so that forgetting it drops them without a walk of every kept one (a
   * batch move of 10,000 devices against 100,000 kept walked 2 billion). Misses are not here: they run out by themselves.
   */
  const snOf = new Map<string, string>();
  const keep = <V>(map: Map<string, V>, sn: string, value: V, deviceId: string | undefined) => {
    map.delete(sn);
    map.set(sn, value);
    if (map.size > maxDevices) map.delete(map.keys().next().value!);
    if (!deviceId) return;
    snOf.delete(deviceId);
    snOf.set(deviceId, sn);
    if (snOf.size > 2 * maxDevices) snOf.delete(snOf.keys().next().value!);
  };
  const entryBySn = async (sn: string): Promise<Entry> => {
    const cached = entries.get(sn);
    if (cached && fresh(cached.at, cached.row !== null)) return cached;
    const at = Date.now();
    const entry = entryOf(at, (await directory.bySn(sn)) ?? null);
    if (forgotAt < at) keep(entries, sn, entry, entry.row?.deviceId);
    return entry;
  };

  return {
    /** A device that may connect: known, enabled, its tenant active, its secret right. */
    async authenticate(username: string | undefined, password: string | undefined): Promise<DeviceRef | null> {
      if (!username) return null;
      if (password) {
        // The kept entry is dropped when its device changes (`forget`), and `usable` takes the log's latest word.
        const { row, digest, ref } = await entryBySn(username);
        return usable(row) && sameDigest(digest, digestOf(password)) ? ref : null;
      }
      // ThingsBoard firmware: the access token is the username, no password.
      const row = await directory.bySecretHash(sha256(username));
      return usable(row) ? refOf(row) : null;
    },

    /** A sub-device of a gateway, by SN or (ThingsBoard gateways) by name; null when not behind that gateway. */
    async subDevice(gateway: DeviceRef, key: string): Promise<DeviceRef | null> {
      const row = await directory.subDevice(gateway.tenantId, gateway.deviceId, key);
      return usable(row) ? refOf(row) : null;
    },

    /** The enabled sub-devices of a gateway (their commands go through it). */
    async subDevicesOf(gateway: DeviceRef): Promise<DeviceRef[]> {
      return (await directory.subDevicesOf(gateway.tenantId, gateway.deviceId)).filter(usable).map(refOf);
    },

    /** Devices the log says are online: at start, those without a session here are reconciled (presence). */
    async recordedOnline(of: { tenantId?: string; deviceId?: string } = {}): Promise<DeviceRef[]> {
      return (await directory.recordedOnline(of)).map(refOf);
    },

    /**
     * Whether a command would reach the device over an external broker, which tells no connects: its presence in
     * the read model (online from its reports, offline after the heartbeat time-out), or its gateway's for a
     * sub-device, whose commands go through the gateway.
     */
    reachability(deviceId: string) {
      return directory.reachability(deviceId);
    },

    /**
     * Devices recorded online at least `afterMs` ago that no process heard from since (by when their reports
     * arrived, which reach the table a second after the device went online): over an external broker, which tells
     * no disconnects, these go offline (the heartbeat time-out).
     */
    async silentOnline(afterMs: number, limit = 1000): Promise<DeviceRef[]> {
      return (await directory.silentOnline(afterMs, limit)).map(refOf);
    },

    /** The device by SN within a tenant (a topic naming a device the session is not). */
    async bySn(sn: string): Promise<DeviceRef | null> {
      const cached = devices.get(sn);
      if (cached && fresh(cached.at, cached.device !== null)) return cached.device;
      const at = Date.now();
      const row = await directory.bySn(sn);
      const device = usable(row) ? refOf(row) : null;
      // Forgotten while the query ran (the device changed): not kept, the next message asks again.
      if (forgotAt < at) keep(devices, sn, { at, device }, row?.deviceId);
      return device;
    },

    /**
     * The event log's word on a device's or tenant's rights (disabled or enabled, deleted, its secret's new hash,
     * tenant stopped or started), taken over the read model's until the read model has surely applied it.
     */
    learnDevice(deviceId: string, change: { enabled?: boolean; deleted?: boolean; secretHash?: string }) {
      learn(`device:${deviceId}`, change);
    },
    learnTenant(tenantId: string, active: boolean) {
      learn(`tenant:${tenantId}`, { tenantActive: active });
    },

    /**
     * A device changed (disabled, deleted, its secret rotated, moved...), or, without an id, a tenant stopped or
     * started: what is kept of it is dropped, and a look-up in flight is not kept either.
     */
    forget(deviceId?: string) {
      forgotAt = Date.now();
      if (!deviceId) return (devices.clear(), entries.clear(), snOf.clear());
      const sn = snOf.get(deviceId);
      if (sn === undefined) return;
      snOf.delete(deviceId);
      devices.delete(sn);
      entries.delete(sn);
    },

    /** The thing model a device reports against, by identifier. */
    async model({ tenantId, productId, modelVersion }: Pick<DeviceRef, 'tenantId' | 'productId' | 'modelVersion'>) {
      const key = `${productId}@${modelVersion}`;
      const cached = models.get(key);
      if (cached && (modelVersion > 0 || Date.now() - cached.at < draftTtl)) return cached.model;
      const functions = await directory.thingModelOf(tenantId, productId, modelVersion);
      const model = new Map<string, ThingFunction>(functions.map((f) => [f.identifier, f]));
      models.set(key, { at: Date.now(), model });
      return model;
    },
  };
}
export type DeviceRegistry = ReturnType<typeof createDeviceRegistry>;
