import type { LiveFeed } from '../ports/live.ts';
import type { StoredEvent, StoredEventOf } from '../ports/event-store.ts';
import type { OtaDeviceEvent } from './events.ts';
import type { FileTaskStatus, OtaProgressFeed } from './model.ts';

/** The `ota.progress` channel: per-device changes, and each task's counts. */
export const OTA_PROGRESS_CHANNEL = 'ota.progress';

const deviceStatus: Record<OtaDeviceEvent['type'], FileTaskStatus> = {
  OtaDeviceOffered: 'executing',
  OtaDeviceProgressed: 'executing',
  OtaDevicePaused: 'pause',
  OtaDeviceResumed: 'executing',
  OtaDeviceSucceeded: 'success',
  OtaDeviceFailed: 'fail',
  OtaDeviceCancelled: 'cancel',
};
export const otaDeviceEventTypes = Object.keys(deviceStatus) as OtaDeviceEvent['type'][];
export const isOtaDeviceEvent = (event: StoredEvent): event is StoredEvent & StoredEventOf<OtaDeviceEvent> => event.type in deviceStatus;

/** A device's change as the channel carries it, from the event alone (no read). */
export function otaDeviceFeedMessage(event: StoredEventOf<OtaDeviceEvent>): OtaProgressFeed {
  const { taskId, deviceId } = event.data;
  const at = event.metadata.occurredAt;
  const status = deviceStatus[event.type];
  switch (event.type) {
    case 'OtaDeviceOffered':
      return { type: 'device', taskId, deviceId, status, stage: 'offered', percent: null, at };
    case 'OtaDeviceProgressed':
      return { type: 'device', taskId, deviceId, status, stage: event.data.stage, percent: event.data.percent, at };
    case 'OtaDeviceSucceeded':
      return { type: 'device', taskId, deviceId, status, stage: 'done', percent: 100, at };
    case 'OtaDeviceFailed':
      return { type: 'device', taskId, deviceId, status, stage: 'failed', at };
    default:
      return { type: 'device', taskId, deviceId, status, at };
  }
}

/** Per feed, the device events told already: by the command that appended them, or by the reactor that read them. */
const told = new WeakMap<LiveFeed, Set<string>>();
/** Ids kept at most (a feed whose other teller runs in another process never takes its ids back). */
const TOLD_MAX = 100_000;

/**
 * Tells the channel of a device event once per process: the command that appended it tells at once (the listener
 * hears it without waiting for the projection runner), and the reactor reading the log tells what no command of this
 * process told (events appended by another process). Whichever comes second is silent.
 */
export function tellOtaDeviceEvent(live: LiveFeed, event: StoredEvent): void {
  if (!isOtaDeviceEvent(event) || !live.listening(OTA_PROGRESS_CHANNEL)) return;
  let ids = told.get(live);
  if (!ids) told.set(live, (ids = new Set()));
  if (ids.delete(event.id)) return;
  if (ids.size >= TOLD_MAX) ids.clear();
  ids.add(event.id);
  live.publish(OTA_PROGRESS_CHANNEL, { tenantId: event.metadata.tenantId }, otaDeviceFeedMessage(event));
}
