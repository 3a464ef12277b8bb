import type { OtaTaskFile } from '@iot/contracts';
import type { EventStore, StoredEvent, Subscription } from '@iot/contracts/ports/event-store.ts';
import type { OtaFileLookup } from '@iot/contracts/ports/files.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { otaFileForDevice, otaFileOfDevice } from '@iot/projections/ota/read.ts';

/** Entries kept at most (each kind); past it everything is dropped and read again. */
const MAX_ENTRIES = 200_000;

/**
 * The file a rollout sends a device, read once per device and task instead of at every HTTP range or MQTT chunk.
 * A task's file never changes, so an entry is only ever refused: from the moment this process reads (from the event
 * log, whichever process appended it) that the device's part ended, the task was cancelled or finished, or the file was
 * deleted. Those ends are remembered apart from the entries, so a read model that has not seen them yet cannot bring
 * an ended part back.
 */
export function createOtaFileLookup(db: Sql, store: EventStore): OtaFileLookup & { start(): Promise<void>; stop(): Promise<void> } {
  const byTask = new Map<string, OtaTaskFile>();
  const byDevice = new Map<string, OtaTaskFile & { taskId: string }>();
  /** Per device, bumped by every offer to it: a newer task's offer may change the file its chunks get. */
  const offers = new Map<string, number>();
  const endedParts = new Set<string>();
  const endedTasks = new Set<string>();
  const deletedFiles = new Set<string>();
  /** The log could not be followed: nothing is kept, every ask reads the read model. */
  let following = false;

  const partKey = (tenantId: string, taskId: string, deviceId: string) => `${tenantId}:${taskId}:${deviceId}`;
  const refused = (tenantId: string, taskId: string, deviceId: string, fileId: string) =>
    endedParts.has(partKey(tenantId, taskId, deviceId)) ||
    endedTasks.has(`${tenantId}:${taskId}`) ||
    deletedFiles.has(`${tenantId}:${fileId}`);
  const forget = () => {
    byTask.clear();
    byDevice.clear();
    offers.clear();
  };

  /** The events `see` acts on: a rollout's progress reports, most of its category, are read past. */
  const seen = [
    'OtaDeviceSucceeded',
    'OtaDeviceFailed',
    'OtaDeviceCancelled',
    'OtaTaskCancelled',
    'OtaTaskFinished',
    'FileDeleted',
    'OtaDeviceOffered',
    'OtaTaskCreated',
  ] as const;

  function see(event: StoredEvent) {
    const { tenantId } = event.metadata;
    const data = event.data as { taskId?: string; deviceId?: string; fileId?: string };
    switch (event.type) {
      case 'OtaDeviceSucceeded':
      case 'OtaDeviceFailed':
      case 'OtaDeviceCancelled':
        if (endedParts.size >= MAX_ENTRIES) {
          // What was kept is read again, from read models that have long seen the ends dropped here.
          endedParts.clear();
          forget();
        }
        endedParts.add(partKey(tenantId, data.taskId!, data.deviceId!));
        return;
      case 'OtaTaskCancelled':
      case 'OtaTaskFinished':
        endedTasks.add(`${tenantId}:${data.taskId!}`);
        return;
      case 'FileDeleted':
        deletedFiles.add(`${tenantId}:${data.fileId!}`);
        return;
      case 'OtaDeviceOffered': {
        const key = `${tenantId}:${data.deviceId!}`;
        offers.set(key, (offers.get(key) ?? 0) + 1);
        byDevice.delete(key);
        return;
      }
      case 'OtaTaskCreated':
        // Its devices' rows count before their offers (ThingsBoard's client asks at once): the newest task may change.
        byDevice.clear();
        return;
      default:
        return;
    }
  }

  let subscription: Subscription | null = null;
  return {
    async start() {
      const after = await store.headPosition();
      following = true;
      subscription = store.subscribe({
        after,
        categories: ['otaTask', 'otaDevice', 'file'],
        types: seen,
        // A download asked for within 20 ms of its part's end is still served: the file is the same.
        gatherMs: 20,
        onEvents: async (events) => events.forEach(see),
        onError: () => {
          following = false;
          forget();
        },
      });
    },
    async stop() {
      await subscription?.stop();
      following = false;
      forget();
    },

    async forTask(tenantId, taskId, deviceId) {
      const key = partKey(tenantId, taskId, deviceId);
      const kept = byTask.get(key);
      if (kept) return refused(tenantId, taskId, deviceId, kept.fileId) ? null : kept;
      const file = await otaFileForDevice(db, tenantId, taskId, deviceId);
      if (!file || refused(tenantId, taskId, deviceId, file.fileId)) return null;
      if (following) {
        if (byTask.size >= MAX_ENTRIES) byTask.clear();
        byTask.set(key, file);
      }
      return file;
    },

    async ofDevice(tenantId, deviceId) {
      const key = `${tenantId}:${deviceId}`;
      const kept = byDevice.get(key);
      if (kept && !refused(tenantId, kept.taskId, deviceId, kept.fileId)) return kept;
      const offered = offers.get(key);
      const file = await otaFileOfDevice(db, tenantId, deviceId);
      if (!file || refused(tenantId, file.taskId, deviceId, file.fileId)) return null;
      // An offer seen while this was read may be a newer task's: the answer serves this ask only.
      if (following && offers.get(key) === offered) {
        if (byDevice.size >= MAX_ENTRIES) byDevice.clear();
        byDevice.set(key, file);
      }
      return file;
    },
  };
}
