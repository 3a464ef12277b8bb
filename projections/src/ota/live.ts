import type { OtaDeviceEvent, OtaProgressFeed, OtaTaskEvent } from '@iot/contracts';
import { isOtaDeviceEvent, OTA_PROGRESS_CHANNEL, otaDeviceEventTypes, tellOtaDeviceEvent } from '@iot/contracts/ota/feed.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';
import { otaCounts, otaTaskById } from './read.ts';

const CHANNEL = OTA_PROGRESS_CHANNEL;
/** A task's counts go out at most this often while its devices report (a burst of reports is one count). */
const COUNTS_EVERY_MS = 250;

const taskTypes = [
  'OtaTaskCreated',
  'OtaWaveStarted',
  'OtaTaskPaused',
  'OtaTaskResumed',
  'OtaTaskCancelled',
  'OtaTaskFinished',
] as const satisfies ReadonlyArray<OtaTaskEvent['type']>;

type Handled = OtaDeviceEvent | Extract<OtaTaskEvent, { type: (typeof taskTypes)[number] }>;

/**
 * The `ota.progress` feed (the rollout screens listen instead of polling): each device change goes out as the command
 * that appended it returns (tellOtaDeviceEvent), or else as its event is read from the log; a task's status and counts follow from the read model, at most every 250 ms per task and once
 * more after its last change, so the counts a screen shows catch up with the devices it was told of.
 */
export function otaLiveHooks(db: Sql, live: LiveFeed) {
  /** Tasks whose counts are due, with their tenant; and when each task's counts last went. */
  const due = new Map<string, string>();
  const sentAt = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;

  async function sendCounts(taskId: string, tenantId: string) {
    const task = await otaTaskById(db, tenantId, taskId);
    if (!task) return;
    const counts = (await otaCounts(db, [taskId])).get(taskId)!;
    live.publish(CHANNEL, { tenantId }, { type: 'task', taskId, status: task.status, wave: task.wave, counts } satisfies OtaProgressFeed);
  }

  function flush() {
    timer = null;
    const now = Date.now();
    let wait = Infinity;
    for (const [taskId, tenantId] of due) {
      const left = (sentAt.get(taskId) ?? 0) + COUNTS_EVERY_MS - now;
      if (left > 0) {
        wait = Math.min(wait, left);
        continue;
      }
      due.delete(taskId);
      sentAt.set(taskId, now);
      // A count that fails (the pool closing at stop) is only a missed hint: the next change or the screen's slow poll mends it.
      void sendCounts(taskId, tenantId).catch(() => undefined);
    }
    if (sentAt.size > 10_000) sentAt.clear();
    // The trailing count: what changed within the last interval goes out once it is over.
    if (due.size > 0) schedule(Number.isFinite(wait) ? wait : COUNTS_EVERY_MS);
  }
  function schedule(ms: number) {
    timer ??= setTimeout(flush, ms);
    timer.unref();
  }

  return projection<Handled>({
    name: 'reactor-ota-live',
    handles: [...otaDeviceEventTypes, ...taskTypes],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      if (!live.listening(CHANNEL)) return;
      const { tenantId } = event.metadata;
      if (isOtaDeviceEvent(event)) tellOtaDeviceEvent(live, event);
      due.set(event.data.taskId, tenantId);
      // Counts wait for the batch's rows: the read model commits its own transaction beside this one.
      schedule(COUNTS_EVERY_MS);
    },
  });
}
