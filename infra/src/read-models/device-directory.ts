import type { DeviceDirectory } from '@iot/contracts/ports/device-directory.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import {
  deviceEntryBySecretHash,
  deviceEntryBySn,
  onlineDeviceEntries,
  reachabilityOf,
  silentOnlineEntries,
  subDeviceEntries,
  subDeviceEntry,
  thingModelOf,
} from '@iot/projections/device/read.ts';

/** The DeviceDirectory port answered by the device read module over the read models' database. */
export const createDeviceDirectory = (db: Sql): DeviceDirectory => ({
  bySn: (sn) => deviceEntryBySn(db, sn),
  bySecretHash: (secretHash) => deviceEntryBySecretHash(db, secretHash),
  subDevice: (tenantId, gatewayId, key) => subDeviceEntry(db, tenantId, gatewayId, key),
  subDevicesOf: (tenantId, gatewayId) => subDeviceEntries(db, tenantId, gatewayId),
  recordedOnline: (of) => onlineDeviceEntries(db, of),
  reachability: (deviceId) => reachabilityOf(db, deviceId),
  silentOnline: (afterMs, limit) => silentOnlineEntries(db, afterMs, limit),
  thingModelOf: (tenantId, productId, modelVersion) => thingModelOf(db, tenantId, productId, modelVersion),
});
