import type { NodeType } from '../device/model.ts';
import type { ThingFunction } from '../device/thing-model.ts';

/** A device as the intake needs it: who it is, whose it is, which thing model it reports against. */
export type DeviceRef = {
  deviceId: string;
  tenantId: string;
  sn: string;
  name: string;
  productId: string;
  modelVersion: number;
  nodeType: NodeType;
  gatewayId: string | null;
  groupId: string | null;
  /** Days its samples are kept: its template's retention period; none without a template (kept for ever). */
  retentionDays?: number | null;
};

/** A device with what decides whether it may connect: its secret's hash, whether it and its tenant are enabled. */
export type DeviceEntry = DeviceRef & {
  secretHash: string;
  enabled: boolean;
  tenantActive: boolean;
};

/** Whether a command reaches a device: its presence, or its gateway's for a sub-device (commands go through it). */
export type Reachability = { online: boolean; gatewaySn: string | null; gatewayOnline: boolean };

/**
 * The devices as the intake (ingest/) looks them up, by what it asks, never by table: the device read module
 * (projections/src/device/read.ts) answers, bound by infra/. Nothing here is cached; ingest's registry keeps what it may.
 */
export interface DeviceDirectory {
  /** The device with this SN, platform-wide. */
  bySn(sn: string): Promise<DeviceEntry | null>;
  /** The device whose secret has this SHA-256 (a ThingsBoard access token). */
  bySecretHash(secretHash: string): Promise<DeviceEntry | null>;
  /** A device behind the gateway, by SN or by name. */
  subDevice(tenantId: string, gatewayId: string, key: string): Promise<DeviceEntry | null>;
  /** Every device behind the gateway. */
  subDevicesOf(tenantId: string, gatewayId: string): Promise<DeviceEntry[]>;
  /** Devices recorded online, of a tenant or one device when named; none before the read models exist. */
  recordedOnline(of: { tenantId?: string; deviceId?: string }): Promise<DeviceEntry[]>;
  /** Whether an enabled device and its gateway are online (null: no such enabled device). */
  reachability(deviceId: string): Promise<Reachability | null>;
  /**
   * Devices recorded online at least `afterMs` ago with no report seen since (the intake's device_reports), at
   * most `limit`: over an external broker, which tells no disconnects, these go offline.
   */
  silentOnline(afterMs: number, limit: number): Promise<DeviceEntry[]>;
  /** The thing model a device bound to `modelVersion` of the product reports against (the Lookups port's `thingModelOf`). */
  thingModelOf(tenantId: string, productId: string, modelVersion: number): Promise<ThingFunction[]>;
}
