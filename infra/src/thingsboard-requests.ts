import { deviceStream } from '@iot/command/device/decide.ts';
import { isDeviceEvent } from '@iot/contracts/device/state.ts';
import { readStreamOf, type EventStore } from '@iot/contracts/ports/event-store.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createThingsboardRequests, DEFAULT_MAX_PAYLOAD_BYTES, type DeviceRegistry, type ThingsboardRequests } from '@iot/ingest';

/**
 * ThingsBoard's client-side RPC and attribute requests (ingest/src/thingsboard.ts) over this process's engines:
 * client attributes from the time-series store's latest samples, shared ones from the desired values in the device's
 * event stream, answers to the asking session through the embedded broker.
 */
export function thingsboardRequests(ports: {
  timeseries: Pick<TimeSeriesStore, 'latest'>;
  events: Pick<EventStore, 'readStream'>;
  registry: Pick<DeviceRegistry, 'model'>;
  publishTo: (clientId: string, topic: string, payload: object) => Promise<boolean>;
}): ThingsboardRequests {
  return createThingsboardRequests({
    latest: (device, keys) =>
      ports.timeseries.latest({ tenantId: device.tenantId, deviceIds: [device.deviceId], ...(keys ? { variables: keys } : {}) }),
    async desired(device) {
      const desired = new Map<string, unknown>();
      for (const event of await readStreamOf(ports.events, deviceStream(device.tenantId, device.deviceId), isDeviceEvent))
        if (event.type === 'DeviceDesiredSet') desired.set(event.data.identifier, event.data.value);
      return desired;
    },
    model: (device) => ports.registry.model(device),
    respond: ports.publishTo,
    maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  });
}
