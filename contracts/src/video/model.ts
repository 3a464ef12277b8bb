import { z } from 'zod';
import { BROWSER_URL_MARK } from '../http/outbound-url.ts';
import { entityId, optionalText } from '../identity/common.ts';

/**
 * A camera's live stream: an HLS playlist (`.m3u8`) over HTTP(S), such as an RTSP-to-HLS gateway serves. The browser
 * plays it; the platform neither fetches nor transcodes it, so the outbound guard has nothing to check (were the server
 * ever to fetch it, for a snapshot image, the field would become an `outboundUrl`). Credentials in the URL are refused:
 * every viewer of the wall would see them.
 */
export const hlsStreamUrl = z
  .string()
  .trim()
  .max(512)
  .url()
  .refine((u) => URL.canParse(u) && ['http:', 'https:'].includes(new URL(u).protocol), 'http:// or https:// URL')
  .refine((u) => !URL.canParse(u) || new URL(u).pathname.toLowerCase().endsWith('.m3u8'), 'an HLS playlist (.m3u8)')
  .refine((u) => !URL.canParse(u) || (new URL(u).username === '' && new URL(u).password === ''), 'no credentials in the URL')
  .meta({ [BROWSER_URL_MARK]: ['http:', 'https:'] });

/** A camera of the video wall (spec §2 operation center → video surveillance, §7 `camera`). */
export const cameraFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    streamUrl: hlsStreamUrl,
    /** The group (site) it watches; null for the tenant as a whole. */
    groupId: entityId.nullish().transform((v) => v ?? null),
    /** The device it watches, if one. */
    deviceId: entityId.nullish().transform((v) => v ?? null),
    location: optionalText(128),
    remark: optionalText(256),
  })
  .strict();
export type CameraFields = z.output<typeof cameraFields>;
export const cameraCreateBody = cameraFields;
export const cameraUpdateBody = cameraFields.safeExtend({ id: entityId });

export const cameraRow = z.object({
  id: z.string(),
  name: z.string(),
  streamUrl: z.string(),
  groupId: z.string().nullable(),
  deviceId: z.string().nullable(),
  location: z.string().nullable(),
  remark: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type CameraRow = z.infer<typeof cameraRow>;
export const cameraSortable = ['createTime', 'name'] as const;
export const cameraFilters = {
  name: z.string().trim().max(64).optional(),
  /** The group and every group below it. */
  groupId: entityId.optional(),
  deviceId: entityId.optional(),
};

/**
 * The snapshot an alarm rule with a camera attaches to its alarms: the camera, its stream as it was, and the moment
 * (the triggering value's time); a player or an HLS gateway with a recording finds the frame at that instant.
 */
export const alarmSnapshotRow = z.object({
  alarmId: z.string(),
  cameraId: z.string(),
  cameraName: z.string().nullable(),
  streamUrl: z.string().nullable(),
  at: z.string(),
});
export type AlarmSnapshotRow = z.infer<typeof alarmSnapshotRow>;
export const alarmSnapshotQuery = z.object({ alarmId: entityId }).strict();
