import { z } from 'zod';
import { parseAllowList } from './outbound/address.ts';

const url = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((v) => protocols.includes(new URL(v).protocol), `must start with ${protocols.join(' or ')}`)
    .optional();

const port = z.coerce.number().int().min(1).max(65_535);

/** Every environment variable the platform reads, validated at start (README "Configuration"). */
export const configSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().default('0.0.0.0'),
  MQTT_PORT: port.default(1883),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_PASSWORD: z.string().min(6).max(16).optional(),
  /** Port of the embedded PostgreSQL when DATABASE_URL is not set. */
  EMBEDDED_PG_PORT: port.default(54329),
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  /** Connections of the API's PostgreSQL pool (default three per core). */
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(500).optional(),
  EVENTSTORE_URL: url(['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:', 'kurrent:']),
  KAFKA_BROKERS: z
    .string()
    .regex(/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'must be host:port[,host:port...]')
    .optional(),
  CLICKHOUSE_URL: url(['http:', 'https:']),
  MQTT_URL: url(['mqtt:', 'mqtts:', 'tcp:', 'ws:', 'wss:']),
  /** With MQTT_URL: Mosquitto's dynamic security holds the device accounts, provisioned by the platform (MQTT_URL's account is its administrator). */
  MQTT_DYNSEC: z.enum(['true', 'false']).default('false'),
  /** With MQTT_URL: the ingest process's persistent session; stable across restarts, one per ingest process (default the host name). */
  MQTT_CLIENT_ID: z
    .string()
    .regex(/^[\w.:-]{1,64}$/)
    .optional(),
  /** With MQTT_URL: the shared-subscription group the ingest processes split device messages in. */
  MQTT_SHARE_GROUP: z
    .string()
    .regex(/^[\w.-]{1,64}$/)
    .default('ingest'),
  /** The shared secret EMQX sends (header `x-mqtt-hook-secret`) to the platform's authentication and authorization hooks; unset: hooks off. */
  MQTT_HOOK_SECRET: z.string().min(16).optional(),
  /** EMQX's REST API (`http://emqx:18083`): a device's sessions are cut through it when it is disabled, deleted, re-keyed or its tenant stops. */
  EMQX_API_URL: url(['http:', 'https:']),
  /** An API key and its secret made in EMQX's dashboard (System → API Keys), for EMQX_API_URL. */
  EMQX_API_KEY: z.string().min(1).optional(),
  EMQX_API_SECRET: z.string().min(1).optional(),
  SMTP_URL: url(['smtp:', 'smtps:']),
  /** Sender address of mail the platform sends. */
  SMTP_FROM: z.string().default('device-cloud <noreply@localhost>'),
  /** Seed the demo tenant and its data on start (default: on with the embedded engines, off with DATABASE_URL). */
  DEMO_DATA: z.enum(['true', 'false']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Domain of the `token` cookie (spec §9 scopes it to the parent domain, e.g. `.example.com`); unset: the host. */
  COOKIE_DOMAIN: z
    .string()
    .regex(/^\.?[a-z0-9.-]+$/i)
    .optional(),
  /** `development` honours the `tenant` header of development builds (spec §7) for the system administrator; never in production. */
  APP_MODE: z.enum(['production', 'development']).default('production'),
  /** Proxies whose X-Forwarded-For/-Proto are believed (comma-separated addresses or CIDRs); unset: none. */
  TRUSTED_PROXIES: z.string().optional(),
  /** The demo fleet's simulator on `npm start` (embedded engines, demo data): `0` turns it off. */
  DEMO_FLEET: z.enum(['0', '1']).default('1'),
  /** A device that disconnects is recorded offline only if it stays away this long (flapping is not news). */
  PRESENCE_OFFLINE_AFTER_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  OTA_TICK_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** The secret rollout download links are signed with: the same in every API process (unset: random per process). */
  OTA_URL_SECRET: z.string().min(16).optional(),
  /** How long a rollout's download link works, in seconds (a device offered again gets a new one). */
  OTA_URL_TTL_SEC: z.coerce.number().int().min(10).max(604_800).default(900),
  /** Where devices reach the API for rollout downloads (`https://ota.example.com`); unset: the API's own address. */
  OTA_URL_BASE: url(['http:', 'https:']),
  /** A device known only by its reports (HTTP, a sub-device, any device over an external broker) is offline after this long without one. */
  PRESENCE_HEARTBEAT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** Notifications a tenant gets per minute, and one recipient; beyond, one summary per recipient for the minute. */
  NOTIFY_TENANT_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(120),
  NOTIFY_CONTACT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(10),
  /** First wait before a failed notification is tried again (it doubles each time, five tries in all). */
  NOTIFY_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  /** First wait before a failed forwarded message is tried again (it doubles each time, up to five minutes). */
  FORWARD_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(1_000),
  /** Tries of a forwarded message before it becomes a dead letter. */
  FORWARD_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * `thread` (default): forward delivery in a worker thread of its own, off the intake's event loop; `inline`: in the
   * process's own thread, which saves the thread's isolate and its second module graph (about 60-90 MB of RSS) on a small VM.
   */
  FORWARD_DELIVERY: z.enum(['thread', 'inline']).default('thread'),
  /** Minutes between reminders of an open work-order ticket. */
  TICKET_REMINDER_MIN: z.coerce.number().int().min(1).max(10_080).default(60),
  /** SMS through Aliyun's SendSms API (signature v1): endpoint, key, secret, sign name and template code, all five or none. */
  SMS_ENDPOINT: url(['http:', 'https:']),
  SMS_ACCESS_KEY_ID: z.string().optional(),
  SMS_ACCESS_KEY_SECRET: z.string().optional(),
  SMS_SIGN_NAME: z.string().optional(),
  SMS_TEMPLATE_CODE: z.string().optional(),
  /** WeCom and DingTalk group robots for wechat-type notifications (DingTalk optionally signed). */
  WECOM_WEBHOOK: url(['http:', 'https:']),
  DINGTALK_WEBHOOK: url(['http:', 'https:']),
  DINGTALK_SECRET: z.string().optional(),
  /**
   * Ranges a tenant's channel URLs (SMS endpoint, WeCom/DingTalk webhooks, SMTP) may reach although they are loopback,
   * private, link-local or reserved: comma-separated CIDRs or addresses (`10.20.0.0/16,fd00::/8`); unset: none.
   */
  OUTBOUND_ALLOW_CIDRS: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      try {
        parseAllowList(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `must be comma-separated CIDRs or addresses (${(error as Error).message})` });
      }
    }),
  /** An S3-compatible object store for uploaded files (`http://minio:9000`); unset: files on disk under DATA_DIR/files. */
  S3_URL: url(['http:', 'https:']),
  /** With S3_URL: the bucket (created at start when missing), its region and the platform's access key. */
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/)
    .default('device-cloud-files'),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Bytes of uploaded files one tenant may keep, in MB; an upload past it is refused before a byte is stored. */
  FILE_QUOTA_MB: z.coerce.number().int().min(1).max(10_000_000).default(10_240),
  /** The largest file one upload may send, in MB. */
  FILE_MAX_MB: z.coerce.number().int().min(1).max(1_000_000).default(2_048),
  /** An upload that receives no byte for this many hours is abandoned: its parts and its quota reservation are removed. */
  FILE_UPLOAD_EXPIRY_H: z.coerce.number().int().min(1).max(8_760).default(24),
  /**
   * Where the browser may fetch cameras' HLS streams from (the video wall): CSP sources, space-separated, each a scheme
   * (`https:`) or an origin (`https://gw.example.com:8443`). The default lets any gateway a tenant names play.
   */
  VIDEO_STREAM_SOURCES: z
    .string()
    .default('http: https:')
    .refine(
      (v) =>
        v
          .trim()
          .split(/\s+/)
          .every((s) => /^https?:$/.test(s) || /^https?:\/\/[a-z0-9.*-]+(:\d{1,5})?$/i.test(s)),
      'must be space-separated schemes (https:) or origins (https://host:port)',
    ),
  /** Fault injection for the crash tests only: `<workflow>:<step>` kills the process right after that step. */
  FAULT_CRASH_AFTER_STEP: z.string().optional(),
  /** Without Kafka: `false` turns the telemetry journal off (at-least-once: a crash between insert and PUBACK stores a resent message twice). */
  TELEMETRY_JOURNAL: z.enum(['true', 'false']).default('true'),
  /** chDB's bounds in MB (issue 23; infra/src/timeseries/chdb.ts): its whole memory, and its caches. 0: ClickHouse's default. */
  CHDB_MAX_SERVER_MEMORY_MB: z.coerce.number().int().min(0).default(1024),
  CHDB_MARK_CACHE_MB: z.coerce.number().int().min(0).default(64),
  CHDB_UNCOMPRESSED_CACHE_MB: z.coerce.number().int().min(0).default(0),
  CHDB_INDEX_CACHE_MB: z.coerce.number().int().min(0).default(32),
  /** The rollup job (infra/src/timeseries/rollup-job.ts): ms between runs (0: not in this process), and the grace of a sample's receipt. */
  TIMESERIES_ROLLUP_EVERY_MS: z.coerce.number().int().min(0).default(10_000),
  TIMESERIES_ROLLUP_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Fault injection for the crash tests only: the process dies after its Nth telemetry insert, before the PUBACKs. */
  FAULT_CRASH_AFTER_INSERT: z.coerce.number().int().min(1).optional(),
  /** Fault injection for the crash tests only: a rule chain's forwarded messages after the Nth never reach the outbox (the test kills the process). */
  FAULT_STALL_FORWARD_AFTER: z.coerce.number().int().min(0).optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; a wrong value stops the start with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(Object.keys(configSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message} (got ${JSON.stringify(known[String(i.path[0])])})`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export const roles = ['all', 'api', 'projections', 'ingest'] as const;
export type Role = (typeof roles)[number];

export function parseRole(argv: string[]): Role {
  const index = argv.indexOf('--role');
  const value = index >= 0 ? argv[index + 1] : argv.find((a) => a.startsWith('--role='))?.slice(7);
  if (value === undefined) return 'all';
  if (!(roles as readonly string[]).includes(value)) throw new ConfigError(`--role must be one of ${roles.join(', ')} (got ${value})`);
  return value as Role;
}
