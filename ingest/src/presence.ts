import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { DeviceRef } from './registry.ts';

export interface PresenceOptions {
  dispatch: Dispatch;
  /** A disconnect is recorded only if the device stays away this long: a flapping device does not flood the log. */
  offlineAfterMs?: number;
  /** A device that only reports (HTTP) is offline after this long without a report. */
  heartbeatTimeoutMs?: number;
  onError?: (error: unknown) => void;
  /**
   * Several processes share the devices (an external broker's shared subscription): no process sees all of a
   * device's reports, so none times it out on its own. A report records it online (again at most every
   * `heartbeatTimeoutMs / 2`, whatever another process recorded meanwhile), and `timedOut` records offline the
   * devices the read model shows silent for the heartbeat time-out.
   */
  shared?: boolean;
  /** The log recorded the device online (it was not): over an external broker, the sign that a device is back. */
  onWentOnline?: (device: DeviceRef) => void;
  now?: () => number;
}

/**
 * Online and offline as domain events (issue 11 "Presence"): online at once on connect or first report;
 * offline only once the device has stayed away `offlineAfterMs`, so reconnecting within it records nothing.
 */
export function createPresence(options: PresenceOptions) {
  const offlineAfter = options.offlineAfterMs ?? 10_000;
  const heartbeat = options.heartbeatTimeoutMs ?? 5 * 60_000;
  /** What the log says now, as far as this process knows (null: not known, ask once). */
  const recorded = new Map<string, boolean>();
  const timers = new Map<string, NodeJS.Timeout>();
  const connections = new Map<string, number>();
  const onError = options.onError ?? (() => {});
  const now = options.now ?? Date.now;
  /** Shared: when this process last recorded each device online. */
  const onlineAt = new Map<string, number>();
  const refreshMs = Math.min(heartbeat / 2, 60_000);

  let stopped = false;
  const record = (device: DeviceRef, online: boolean, reason?: 'disconnect' | 'timeout') => {
    if (stopped || recorded.get(device.deviceId) === online) return;
    recorded.set(device.deviceId, online);
    const at = new Date().toISOString();
    options
      .dispatch(
        { type: 'SetDevicePresence', deviceId: device.deviceId, online, at, ...(reason ? { reason } : {}) },
        {
          tenantId: device.tenantId,
          actor: { kind: 'device', id: device.deviceId },
          correlationId: `presence:${device.deviceId}:${at}`,
          causationId: null,
          idempotencyKey: `presence:${device.deviceId}:${online ? 'on' : 'off'}:${at}`,
        },
      )
      .then((result) => {
        if (online && result.position !== null) options.onWentOnline?.(device);
      })
      .catch((error: unknown) => {
        recorded.delete(device.deviceId);
        onError(error);
      });
  };
  const clear = (deviceId: string) => {
    clearTimeout(timers.get(deviceId));
    timers.delete(deviceId);
  };
  const later = (device: DeviceRef, ms: number, reason: 'disconnect' | 'timeout') => {
    clear(device.deviceId);
    const timer = setTimeout(() => {
      timers.delete(device.deviceId);
      if ((connections.get(device.deviceId) ?? 0) === 0) record(device, false, reason);
    }, ms);
    timer.unref();
    timers.set(device.deviceId, timer);
  };

  return {
    connected(device: DeviceRef) {
      connections.set(device.deviceId, (connections.get(device.deviceId) ?? 0) + 1);
      clear(device.deviceId);
      record(device, true);
    },
    disconnected(device: DeviceRef) {
      const left = Math.max(0, (connections.get(device.deviceId) ?? 1) - 1);
      connections.set(device.deviceId, left);
      if (left === 0) later(device, offlineAfter, 'disconnect');
    },
    /** The device lost its right to its connections (disabled, deleted, re-keyed, tenant stopped): offline now, not after the delay. */
    gone(device: DeviceRef) {
      connections.delete(device.deviceId);
      clear(device.deviceId);
      onlineAt.delete(device.deviceId);
      recorded.delete(device.deviceId);
      record(device, false, 'disconnect');
    },
    /** A report from a device without a connection of its own (HTTP, or a gateway's sub-device). */
    reported(device: DeviceRef) {
      if (options.shared) {
        const at = now();
        if (at - (onlineAt.get(device.deviceId) ?? -Infinity) < refreshMs) return;
        onlineAt.set(device.deviceId, at);
        if (onlineAt.size > 100_000) onlineAt.delete(onlineAt.keys().next().value!);
        recorded.delete(device.deviceId);
        return record(device, true);
      }
      if ((connections.get(device.deviceId) ?? 0) > 0) return;
      record(device, true);
      if (!timers.has(device.deviceId) || recorded.get(device.deviceId)) later(device, heartbeat, 'timeout');
    },
    /**
     * At start: devices the log says are online (the process that saw them connect stopped). Those that do not
     * connect or report within the offline delay (a sub-device or HTTP device: the heartbeat time-out) go offline.
     */
    reconcile(devices: DeviceRef[]) {
      for (const device of devices) {
        if ((connections.get(device.deviceId) ?? 0) > 0 || timers.has(device.deviceId)) continue;
        later(device, device.nodeType === 'subDevice' ? heartbeat : offlineAfter, 'disconnect');
      }
    },
    /** Shared: a device no process heard from for the heartbeat time-out goes offline (its next report brings it back). */
    timedOut(device: DeviceRef) {
      onlineAt.delete(device.deviceId);
      recorded.delete(device.deviceId);
      record(device, false, 'timeout');
    },
    heartbeatTimeoutMs: heartbeat,
    isOnline: (deviceId: string) => recorded.get(deviceId) === true,
    stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
export type Presence = ReturnType<typeof createPresence>;
