import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { entityId, instant, timeZone } from '../identity/common.ts';
import { devicePerm } from '../device/permissions.ts';
import { identifier } from '../device/thing-model.ts';

/** A value as the screen shows it: the number or text, and its display by the thing model's convert rules (spec §7). */
export const latestValue = z.object({
  variable: z.string(),
  name: z.string().nullable(),
  unit: z.string().nullable(),
  ts: z.string(),
  value: z.number().nullable(),
  text: z.string().nullable(),
  /** `运行` rather than `1`: the enum label, the boolean's, or the value with its unit. */
  display: z.string(),
});

export const historyBuckets = ['raw', '15m', '1h', '1d'] as const;
export const historyFns = ['avg', 'max', 'min', 'first', 'last', 'count', 'sum'] as const;

const variableList = z
  .union([z.array(identifier), z.string().transform((v) => v.split(',').filter(Boolean))])
  .pipe(z.array(identifier).max(8));

/** Spec §5: a history query needs a device and a variable; the handler says 'Please complete the query conditions'. */
export const historyQuery = z
  .object({
    id: entityId.optional(),
    variables: variableList.optional(),
    from: instant.describe('Start of the range, inclusive'),
    to: instant.describe('End of the range, exclusive: a sample stamped exactly `to` is not in it'),
    bucket: z.enum(historyBuckets).default('raw'),
    fn: z.enum(historyFns).default('avg'),
    page: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(5000).default(500),
    timeZone: timeZone.default('Asia/Shanghai'),
  })
  .strict()
  .refine((q) => Date.parse(q.from) < Date.parse(q.to), { message: 'from must be before to', path: ['to'] });

export const historyExportQuery = z
  .object({
    id: entityId.optional(),
    variables: variableList.optional(),
    from: instant.describe('Start of the range, inclusive'),
    to: instant.describe('End of the range, exclusive: a sample stamped exactly `to` is not in it'),
    format: z.enum(['csv', 'xlsx']).default('csv'),
  })
  .strict();

export const historySeries = z.object({
  variable: z.string(),
  name: z.string().nullable(),
  unit: z.string().nullable(),
  /** Raw samples (bucket raw) or one point per bucket. */
  points: z.array(z.object({ ts: z.string(), value: z.number().nullable(), text: z.string().nullable() })),
  total: z.number().int(),
});

export const deadLetterRow = z.object({
  id: z.string(),
  deviceId: z.string().nullable(),
  sn: z.string().nullable(),
  topic: z.string(),
  reason: z.string(),
  payload: z.string(),
  at: z.string(),
});

/** Readings a device posts over HTTP (devices that cannot speak MQTT): its credentials and the MQTT payload shapes. */
export const httpReportBody = z
  .object({
    sn: z.string().max(64).optional(),
    secret: z.string().max(128).optional(),
    token: z.string().max(128).optional(),
    data: z.unknown(),
  })
  .strict()
  .refine((b) => !!b.token || (!!b.sn && !!b.secret), { message: 'token, or sn and secret', path: ['token'] });

export const deviceCommandBody = z
  .object({
    id: entityId,
    kind: z.enum(['service', 'property']),
    identifier,
    params: z.record(z.string(), z.unknown()).default({}),
    /** Wait for the reply (up to the service's timeout) or not; absent: as the thing model's service says. */
    mode: z.enum(['sync', 'async']).optional(),
  })
  .strict();
export const deviceCommandResult = z.object({
  messageId: z.string(),
  /** `sent`: asynchronous, the reply is recorded when it comes; the others end a synchronous call. */
  status: z.enum(['sent', 'replied', 'timeout', 'offline']),
  output: z.unknown().nullable(),
});

/** One command to a device as its events tell it: what was asked, by whom, and how it ended. */
export const deviceCommandRow = z.object({
  messageId: z.string(),
  kind: z.enum(['service', 'property']),
  identifier: z.string(),
  params: z.record(z.string(), z.unknown()),
  mode: z.enum(['sync', 'async']),
  at: z.string(),
  actorKind: z.string(),
  actorId: z.string(),
  actorName: z.string().nullable(),
  /** `sent`: no reply yet (an asynchronous command, or one still waiting). */
  status: z.enum(['sent', 'replied', 'timeout', 'offline']),
  output: z.unknown().nullable(),
  settledAt: z.string().nullable(),
});

export const setDesiredBody = z.object({ id: entityId, identifier, value: z.unknown() }).strict();

/** A writable property's desired value (set by an operator) against what the device last reported. */
export const desiredRow = z.object({
  identifier: z.string(),
  name: z.string().nullable(),
  desired: z.unknown().nullable(),
  desiredAt: z.string().nullable(),
  actorName: z.string().nullable(),
  reported: z.unknown().nullable(),
  reportedAt: z.string().nullable(),
  /** The device reports the desired value (or nothing is desired). */
  inSync: z.boolean(),
});

/** Issue 11: latest values, history, dead letters, and HTTP ingest. */
export const telemetryRoutes = {
  'telemetry.latest': route({
    method: 'GET',
    path: '/api/iot/device/latest',
    permission: devicePerm.deviceList,
    tag: 'telemetry',
    summary: "A device's newest value of every variable, with its display by the thing model's convert rules",
    query: z.object({ id: entityId }).strict(),
    response: z.array(latestValue),
    reads: ['devices'],
    errors: ['NOT_FOUND'],
  }),
  'telemetry.history': route({
    method: 'GET',
    path: '/api/iot/device/history',
    permission: devicePerm.deviceList,
    tag: 'telemetry',
    summary:
      'History of one device from `from` (inclusive) to `to` (exclusive): raw samples, or 15-minute, hourly or daily buckets in the tenant time zone; several variables at once',
    query: historyQuery,
    response: z.array(historySeries),
    reads: ['devices'],
    errors: ['QUERY_INCOMPLETE', 'NOT_FOUND'],
  }),
  'telemetry.export': route({
    method: 'GET',
    path: '/api/iot/device/history/export',
    permission: devicePerm.deviceExport,
    tag: 'telemetry',
    summary:
      'History of one device from `from` (inclusive) to `to` (exclusive) as CSV or XLSX, streamed as it is read (a million rows never sit in memory)',
    query: historyExportQuery,
    produces: 'text/csv',
    response: z.string().describe('CSV (UTF-8 with a byte order mark) or XLSX with format=xlsx'),
    reads: ['devices'],
    errors: ['QUERY_INCOMPLETE', 'NOT_FOUND'],
  }),
  'telemetry.deadLetters': route({
    method: 'GET',
    path: '/api/iot/deadLetter',
    permission: devicePerm.deviceList,
    tag: 'telemetry',
    summary: 'Messages the intake could not take: device, topic, reason and payload (first 4 KB)',
    query: listQuery(['at'] as const, { sn: z.string().trim().max(64).optional(), reason: z.string().trim().max(64).optional() }),
    response: page(deadLetterRow),
    reads: [],
  }),
  'device.command': route({
    method: 'POST',
    path: '/api/iot/device/command',
    permission: devicePerm.deviceCommand,
    tag: 'telemetry',
    summary:
      'Invoke a thing-model service (synchronous: waits for the reply up to its timeout) or set a writable property; request, reply or time-out recorded as device events',
    body: deviceCommandBody,
    response: deviceCommandResult,
    reads: [],
    errors: ['NOT_FOUND', 'COMMAND_INVALID', 'DEVICE_DISABLED'],
  }),
  'device.commands': route({
    method: 'GET',
    path: '/api/iot/device/commands',
    permission: devicePerm.deviceList,
    tag: 'telemetry',
    summary: "A device's recent commands, newest first: request, reply, time-out or offline, and who asked (from its events)",
    query: z.object({ id: entityId, limit: z.coerce.number().int().min(1).max(200).default(50) }).strict(),
    response: z.array(deviceCommandRow),
    reads: [],
    errors: ['NOT_FOUND'],
  }),
  'device.desired': route({
    method: 'GET',
    path: '/api/iot/device/desired',
    permission: devicePerm.deviceList,
    tag: 'telemetry',
    summary: "Desired against reported state of a device's writable properties: the difference is what the device has not yet applied",
    query: z.object({ id: entityId }).strict(),
    response: z.array(desiredRow),
    reads: [],
    errors: ['NOT_FOUND'],
  }),
  'device.setDesired': route({
    method: 'POST',
    path: '/api/iot/device/desired',
    permission: devicePerm.deviceCommand,
    tag: 'telemetry',
    summary:
      'Set the desired value of a writable property: recorded with who asked, sent now if the device is connected, re-sent when it reconnects until it reports the value',
    body: setDesiredBody,
    response: z.object({ messageId: z.string().nullable(), status: z.enum(['sent', 'offline']) }),
    reads: [],
    errors: ['NOT_FOUND', 'COMMAND_INVALID', 'DEVICE_DISABLED'],
  }),
  'telemetry.report': route({
    method: 'POST',
    path: '/api/iot/telemetry',
    permission: 'public',
    tag: 'telemetry',
    summary: 'HTTP ingest for devices without MQTT: credentials (sn and secret, or token) and readings as on MQTT',
    body: httpReportBody,
    response: z.object({ accepted: z.number().int(), rejected: z.array(z.object({ identifier: z.string(), reason: z.string() })) }),
    reads: [],
    errors: ['DEVICE_AUTH_FAILED', 'TELEMETRY_INVALID'],
  }),
};
export type TelemetryRoutes = typeof telemetryRoutes;
