import { z } from 'zod';
import { perm } from '../identity/permissions.ts';
import { importProgress } from '../device/model.ts';
import { devicePerm } from '../device/permissions.ts';
import { alarmPerm } from '../alarm/permissions.ts';
import { otaProgressFeed } from '../ota/model.ts';
import { otaPerm } from '../ota/permissions.ts';
import { statBackfillFeed } from '../stat/model.ts';
import { statPerm } from '../stat/permissions.ts';
import type { RoutePermission } from './principal.ts';

/**
 * A websocket feed, declared like a route: who may listen (permission), whose messages reach them (scope:
 * the caller's tenant, or the tenant narrowed to the caller's current group subtree) and what a message is.
 */
export interface ChannelSpec {
  path: string;
  permission: RoutePermission;
  scope: 'tenant' | 'group';
  summary: string;
  message: z.ZodType;
  /** What a listener may send on the socket (pass-through bytes); absent: listeners only listen. */
  inbound?: z.ZodType;
  /**
   * The messages of one tick go to each listener in one frame, a JSON array when there are several (channelMessages
   * reads both shapes): a feed of thousands of changes a second costs a frame per tick, not a frame per change.
   */
  batch?: boolean;
}
export const channel = <const C extends ChannelSpec>(spec: C): C => spec;

/** The messages of one frame of a channel: a batch channel's frame is one message or an array of them. */
export function channelMessages(frame: string): unknown[] {
  const parsed: unknown = JSON.parse(frame);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** A change as the live operation log shows it: what happened, to which stream, by whom, when. */
export const activityMessage = z.object({
  eventId: z.string(),
  eventType: z.string(),
  stream: z.string(),
  actorKind: z.string(),
  actorId: z.string(),
  occurredAt: z.string(),
  position: z.string(),
});
export type ActivityMessage = z.infer<typeof activityMessage>;

/** Every websocket feed of the platform (device import progress, live telemetry and alarms join with their issues). */
export const channels = {
  'activity.live': channel({
    path: '/api/ws/activity',
    permission: perm.logList,
    scope: 'tenant',
    summary: "The tenant's changes as they are recorded (the operation log, live)",
    message: activityMessage,
  }),
  'telemetry.live': channel({
    path: '/api/ws/telemetry',
    permission: devicePerm.deviceList,
    scope: 'group',
    summary:
      'Values as devices report them, for the current group subtree (or `?deviceIds=a,b`); a slow reader gets the newest, not a queue',
    message: z.object({
      deviceId: z.string(),
      variable: z.string(),
      ts: z.string(),
      value: z.number().nullable(),
      text: z.string().nullable(),
    }),
  }),
  'device.import': channel({
    path: '/api/ws/device/import',
    permission: devicePerm.deviceImport,
    scope: 'tenant',
    summary: 'Progress of device imports: rows read, created, refused, bytes',
    message: importProgress,
  }),
  'alarm.live': channel({
    path: '/api/ws/alarm',
    permission: alarmPerm.alarmList,
    scope: 'group',
    summary: 'Alarms as they are raised, repeated, acknowledged, processed and cleared, for the current group subtree',
    message: z.object({
      alarmId: z.string(),
      event: z.enum(['raised', 'repeated', 'acknowledged', 'processed', 'cleared']),
      deviceId: z.string(),
      level: z.number().int().nullable(),
      at: z.string(),
    }),
  }),
  'device.passthrough': channel({
    path: '/api/ws/device/passthrough',
    permission: devicePerm.deviceCommand,
    scope: 'group',
    summary:
      "Pass-through for DTU-style devices: raw bytes (base64) relayed between an operator and a device's `devices/<sn>/passthrough/up|down` topics (`?deviceIds=`), with the relay's state: in progress, or failed and why",
    message: z.discriminatedUnion('type', [
      z.object({ type: z.literal('data'), deviceId: z.string(), data: z.base64(), at: z.string() }),
      z.object({ type: z.literal('state'), deviceId: z.string(), state: z.enum(['inProgress', 'failed']), reason: z.string().nullable() }),
    ]),
    inbound: z.object({ deviceId: z.string().max(64), data: z.base64().max(64_000) }).strict(),
  }),
  'inbox.live': channel({
    path: '/api/ws/inbox',
    permission: alarmPerm.recordList,
    scope: 'tenant',
    summary: "The in-app inbox: how many messages just arrived (each user's unread count is their own: GET /api/iot/notifyRecord/unread)",
    message: z.object({ arrived: z.number().int() }),
  }),
  'ota.progress': channel({
    path: '/api/ws/ota/progress',
    permission: otaPerm.list,
    scope: 'tenant',
    summary:
      "Progress of the tenant's OTA rollouts: each device's status, stage and percent as it reports them, and each task's status and device counts; a frame holds one message or an array of the messages of one moment",
    message: otaProgressFeed,
    batch: true,
  }),
  'stat.backfill': channel({
    path: '/api/ws/stat/backfill',
    permission: statPerm.list,
    scope: 'tenant',
    summary:
      "Progress of the tenant's statistic-task backfills over past data: each task's status and share done, as each chunk is computed",
    message: statBackfillFeed,
  }),
};
export type Channels = typeof channels;
