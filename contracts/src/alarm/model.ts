import { z } from 'zod';
import { enabledStatuses, entityId, idList, instant, optionalText, timeZone } from '../identity/common.ts';
import { identifier } from '../device/thing-model.ts';
import { outboundUrl } from '../http/outbound-url.ts';
import {
  alarmLevels,
  alarmModes,
  alarmPush,
  alarmTriggers,
  alarmTypes,
  comparisonOperators,
  notifySendWays,
  notifySources,
  notifyTypes,
} from '../constants.ts';

const name = z.string().trim().min(1).max(64);
const text = (max: number) => optionalText(max);
/** A finite number: `1e400` and NaN never reach a threshold. */
const finite = z.number().finite().min(-1e15).max(1e15);

// ---------------------------------------------------------------- spec §9 constants
export type AlarmLevel = (typeof alarmLevels)[number];
export type AlarmType = (typeof alarmTypes)[number];
export type AlarmMode = (typeof alarmModes)[number];
export type ComparisonOperator = (typeof comparisonOperators)[number];
export const ruleTriggers = ['first', 'every'] as const;
export type AlarmTrigger = (typeof alarmTriggers)[number];
export const alarmStatuses = ['active', 'cleared'] as const;
export type AlarmStatus = (typeof alarmStatuses)[number];
/** The tenant's dictionary of alarm categories (system → dictionaries), seeded with a few. */
export const ALARM_CATEGORY_DICT = 'alarm_category';
/** Spec §5: at most 10 manual fault entries at once. */
export const MANUAL_ENTRY_MAX = 10;

// ---------------------------------------------------------------- alarm settings (rules)
export const alarmRuleFields = z
  .object({
    name,
    /** A rule for every device of a product, or for one device of it. */
    productId: entityId,
    deviceId: entityId.nullish().transform((v) => v ?? null),
    /** A property (or, for mode `event`, an event) of the product's thing model. */
    variable: identifier,
    type: z.enum(alarmTypes),
    category: text(64),
    mode: z.enum(alarmModes),
    operator: z.enum(comparisonOperators).default('gt'),
    threshold: finite.nullish().transform((v) => v ?? null),
    /** Mode `crossBoth`: the lower bound and its operator (the upper is `operator` and `threshold`). */
    lowOperator: z.enum(comparisonOperators).default('lt'),
    lowThreshold: finite.nullish().transform((v) => v ?? null),
    level: z.number().int().min(1).max(5),
    trigger: z.enum(ruleTriggers).default('first'),
    push: z.enum(alarmPush).default('firstTime'),
    /** Minutes between notifications of an alarm still active, when `push` is `interval`. */
    pushIntervalMin: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .nullish()
      .transform((v) => v ?? null),
    faultFlag: z.boolean().default(false),
    cause: text(256),
    suggestion: text(256),
    autoClear: z.boolean().default(true),
    /** Beyond the threshold for this long (seconds) and this many samples in a row before raising: 0 raises at once. */
    durationSec: z.number().int().min(0).max(86_400).default(0),
    durationSamples: z.number().int().min(0).max(1000).default(0),
    /** Back inside the threshold by this much before clearing, so that a noisy value does not flap. */
    deadband: z.number().finite().min(0).max(1e9).default(0),
    status: z.enum(enabledStatuses).default('enabled'),
    /** A camera whose snapshot (a reference to its stream at the alarm's moment) each alarm of the rule carries. */
    cameraId: entityId
      .nullish()
      .transform((v) => v ?? null)
      .optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.mode !== 'event' && rule.threshold === null)
      ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'threshold: required for this mode' });
    if (rule.mode === 'crossBoth' && rule.lowThreshold === null)
      ctx.addIssue({ code: 'custom', path: ['lowThreshold'], message: 'lowThreshold: required for mode crossBoth' });
    if (rule.mode === 'crossBoth' && rule.lowThreshold !== null && rule.threshold !== null && rule.lowThreshold > rule.threshold)
      ctx.addIssue({ code: 'custom', path: ['lowThreshold'], message: 'lowThreshold: above the upper threshold' });
    if (rule.push === 'interval' && rule.pushIntervalMin === null)
      ctx.addIssue({ code: 'custom', path: ['pushIntervalMin'], message: 'pushIntervalMin: required for interval push' });
  });
export type AlarmRuleFields = z.output<typeof alarmRuleFields>;
export const alarmRuleCreateBody = alarmRuleFields;
// safeExtend keeps the fields' refinements and strictness, so an undeclared key is refused here as on create.
export const alarmRuleUpdateBody = alarmRuleFields.safeExtend({ id: entityId });
export const alarmRuleRow = z.object({
  id: z.string(),
  name: z.string(),
  productId: z.string(),
  productName: z.string().nullable(),
  deviceId: z.string().nullable(),
  deviceName: z.string().nullable(),
  variable: z.string(),
  type: z.enum(alarmTypes),
  category: z.string().nullable(),
  mode: z.enum(alarmModes),
  operator: z.enum(comparisonOperators),
  threshold: z.number().nullable(),
  lowOperator: z.enum(comparisonOperators),
  lowThreshold: z.number().nullable(),
  level: z.number().int(),
  trigger: z.enum(ruleTriggers),
  push: z.enum(alarmPush),
  pushIntervalMin: z.number().int().nullable(),
  faultFlag: z.boolean(),
  cause: z.string().nullable(),
  suggestion: z.string().nullable(),
  autoClear: z.boolean(),
  durationSec: z.number().int(),
  durationSamples: z.number().int(),
  deadband: z.number(),
  status: z.enum(enabledStatuses),
  cameraId: z.string().nullable(),
  createTime: z.string(),
});
export type AlarmRuleRow = z.infer<typeof alarmRuleRow>;
export const alarmRuleSortable = ['createTime', 'name', 'level'] as const;

// ---------------------------------------------------------------- alarms
export const alarmRow = z.object({
  id: z.string(),
  ruleId: z.string().nullable(),
  ruleName: z.string().nullable(),
  deviceId: z.string(),
  deviceName: z.string().nullable(),
  sn: z.string().nullable(),
  groupId: z.string().nullable(),
  variable: z.string().nullable(),
  type: z.enum(alarmTypes),
  category: z.string().nullable(),
  mode: z.enum(alarmModes).nullable(),
  level: z.number().int(),
  trigger: z.enum(alarmTriggers),
  threshold: z.string().nullable(),
  value: z.number().nullable(),
  text: z.string().nullable(),
  faultFlag: z.boolean(),
  cause: z.string().nullable(),
  suggestion: z.string().nullable(),
  status: z.enum(alarmStatuses),
  count: z.number().int(),
  raisedAt: z.string(),
  clearedAt: z.string().nullable(),
  clearedBy: z.string().nullable(),
  acknowledged: z.boolean(),
  acknowledgedBy: z.string().nullable(),
  acknowledgedAt: z.string().nullable(),
  processed: z.boolean(),
  processNote: z.string().nullable(),
  processedBy: z.string().nullable(),
  processedAt: z.string().nullable(),
  ticketId: z.string().nullable(),
});
export type AlarmRow = z.infer<typeof alarmRow>;
export const alarmSortable = ['raisedAt', 'level', 'clearedAt'] as const;
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
export const alarmListFilters = {
  /** Current: active alarms; history: cleared ones. */
  tab: z.enum(['current', 'history']).default('current'),
  level: z.coerce.number().int().min(1).max(5).optional(),
  deviceId: entityId.optional(),
  sn: z.string().trim().max(64).optional(),
  ruleId: entityId.optional(),
  processed: bool.optional(),
  from: instant.optional(),
  to: instant.optional(),
};
/** One step of an alarm's life, as its stream recorded it: who (a user, or the system) and when. */
export const alarmTimelineEntry = z.object({
  type: z.enum([
    'AlarmRaised',
    'AlarmRepeated',
    'AlarmAcknowledged',
    'AlarmProcessed',
    'AlarmCleared',
    'AlarmTicketOpened',
    'AlarmTicketClosed',
  ]),
  at: z.string(),
  actorKind: z.string(),
  actorId: z.string(),
  /** The user's name; null for the platform's own steps (the evaluator). */
  actorName: z.string().nullable(),
  /** The triggering or clearing value, and when it was measured. */
  value: z.number().nullable(),
  text: z.string().nullable(),
  measuredAt: z.string().nullable(),
  note: z.string().nullable(),
  /** Repeats counted so far (trigger 'every'). */
  count: z.number().int().nullable(),
  auto: z.boolean().nullable(),
  ticketId: z.string().nullable(),
});
export type AlarmTimelineEntry = z.infer<typeof alarmTimelineEntry>;
export const alarmDetail = z.object({ alarm: alarmRow, timeline: z.array(alarmTimelineEntry) });
export const exportFormat = z.enum(['csv', 'xlsx']).default('csv');

export const alarmIdsBody = z.object({ ids: idList.pipe(z.array(entityId).min(1).max(200)) }).strict();
export const alarmProcessBody = z
  .object({ ids: idList.pipe(z.array(entityId).min(1).max(200)), note: z.string().trim().min(1).max(512) })
  .strict();
export const alarmTicketBody = z.object({ id: entityId, contactId: entityId, note: text(512) }).strict();

/** Spec §5: a manual fault entry needs device, variable, type, level, trigger mode and fault status. */
export const manualEntry = z
  .object({
    deviceId: entityId,
    variable: identifier.nullish().transform((v) => v ?? null),
    type: z
      .enum(alarmTypes)
      .nullish()
      .transform((v) => v ?? null),
    category: text(64),
    level: z
      .number()
      .int()
      .min(1)
      .max(5)
      .nullish()
      .transform((v) => v ?? null),
    trigger: z
      .enum(alarmTriggers)
      .nullish()
      .transform((v) => v ?? null),
    faultFlag: z
      .boolean()
      .nullish()
      .transform((v) => v ?? null),
    value: finite.nullish().transform((v) => v ?? null),
    cause: text(256),
    suggestion: text(256),
  })
  .strict();
export type ManualEntry = z.output<typeof manualEntry>;
export const manualEntryBody = z
  .object({
    rows: z.array(manualEntry).min(1).max(MANUAL_ENTRY_MAX, { message: 'Only 10 new data can be added at most' }),
    /** The operator was told some rows are incomplete and chose to submit them anyway. */
    confirmIncomplete: z.boolean().default(false),
  })
  .strict();
export const isIncomplete = (e: ManualEntry) =>
  e.variable === null || e.type === null || e.level === null || e.trigger === null || e.faultFlag === null;

// ---------------------------------------------------------------- contacts (spec §3 Contact, §5)
/** A WeChat ID: 6-20 characters, a letter first, then letters, digits, _ or - (WeChat's own rule). */
export const wechatId = z
  .string()
  .trim()
  .regex(/^[a-zA-Z][-_a-zA-Z0-9]{5,19}$/, { message: 'wechat: 6-20 characters, a letter first' });
const phone = z
  .string()
  .trim()
  .regex(/^\+?[0-9]{6,20}$/, { message: 'phone: digits only' });
export const contactFields = z
  .object({
    name: z.string().trim().min(1).max(20),
    phone: phone.nullish().transform((v) => v ?? null),
    email: z.string().trim().max(128).email(),
    emailActivated: z.boolean().default(false),
    wechat: wechatId.nullish().transform((v) => v ?? null),
    remark: text(256),
  })
  .strict();
export type ContactFields = z.output<typeof contactFields>;
export const contactUpdateBody = contactFields.extend({ id: entityId }).strict();
export const contactRow = z.object({
  id: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string(),
  emailActivated: z.boolean(),
  wechat: z.string().nullable(),
  remark: z.string().nullable(),
  createTime: z.string(),
});
export const contactSortable = ['createTime', 'name'] as const;

// ---------------------------------------------------------------- notification templates, configurations, records
export type NotifyType = (typeof notifyTypes)[number];
export const sendWays = notifySendWays;
export type SendWay = (typeof sendWays)[number];
/** The variables a template's content may name as `{{name}}`. */
export const templateVariables = ['device', 'sn', 'variable', 'value', 'level', 'time', 'cause', 'suggestion', 'rule', 'status'] as const;
const templateContent = z
  .string()
  .trim()
  .min(1)
  .max(2000)
  .superRefine((content, ctx) => {
    for (const m of content.matchAll(/\{\{\s*([^}\s]*)\s*\}\}/g))
      if (!(templateVariables as readonly string[]).includes(m[1]!))
        ctx.addIssue({ code: 'custom', message: `content: unknown variable {{${m[1]}}}; known: ${templateVariables.join(', ')}` });
  });
export const notifyTemplateFields = z
  .object({
    /** The template's ID as the spec names it: a code the operator chooses, unique in the tenant. */
    code: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_.-]+$/, { message: 'code: letters, digits, _ . -' }),
    name,
    type: z.enum(notifyTypes),
    subject: text(128),
    content: templateContent,
  })
  .strict();
export type NotifyTemplateFields = z.output<typeof notifyTemplateFields>;
export const notifyTemplateUpdateBody = notifyTemplateFields.extend({ id: entityId }).strict();
export const notifyTemplateRow = notifyTemplateFields.extend({ id: z.string(), subject: z.string().nullable(), createTime: z.string() });
export const notifyTemplateSortable = ['createTime', 'name', 'code'] as const;
export const notifyPreviewBody = z.object({ content: templateContent, subject: text(128) }).strict();
export const notifyPreview = z.object({ subject: z.string(), content: z.string() });

export const notifyConfigFields = z
  .object({
    name,
    source: z.enum(notifySources),
    /** Alarms of devices in this group's subtree (none: every device of the tenant). */
    groupId: entityId.nullish().transform((v) => v ?? null),
    type: z.enum(notifyTypes),
    templateId: entityId,
    sendWays: z.array(z.enum(sendWays)).min(1).max(3),
    contactIds: z.array(entityId).min(1).max(100),
    /** Alarms at this level or above. */
    minLevel: z.number().int().min(1).max(5).default(1),
    status: z.enum(enabledStatuses).default('enabled'),
  })
  .strict();
export type NotifyConfigFields = z.output<typeof notifyConfigFields>;
export const notifyConfigUpdateBody = notifyConfigFields.extend({ id: entityId }).strict();
export const notifyConfigRow = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(notifySources),
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  type: z.enum(notifyTypes),
  templateId: z.string(),
  templateName: z.string().nullable(),
  sendWays: z.array(z.enum(sendWays)),
  contactIds: z.array(z.string()),
  contactNames: z.array(z.string()),
  minLevel: z.number().int(),
  status: z.enum(enabledStatuses),
  createTime: z.string(),
});
export const notifyConfigSortable = ['createTime', 'name'] as const;

export const recordStatuses = ['unsent', 'sent', 'failed'] as const;
export type RecordStatus = (typeof recordStatuses)[number];
export const notifyRecordRow = z.object({
  id: z.string(),
  groupId: z.string().nullable(),
  status: z.enum(recordStatuses),
  error: z.string().nullable(),
  attempts: z.number().int(),
  /** How it went: a send way, or `wechat` for the tenant's group robot (WeCom, DingTalk). */
  sendWay: z.enum([...sendWays, 'wechat']),
  type: z.string(),
  recipient: z.string(),
  contactName: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  alarmId: z.string().nullable(),
  ticketId: z.string().nullable(),
  sn: z.string().nullable(),
  read: z.boolean(),
  summary: z.boolean(),
  createTime: z.string(),
  sentAt: z.string().nullable(),
  /** What carried it: smtp, sms, wecom, dingtalk, inbox, or outbox (no channel configured: kept in the app). */
  via: z.string().nullable(),
});
export type NotifyRecordRow = z.infer<typeof notifyRecordRow>;
export const notifyRecordSortable = ['createTime', 'status'] as const;
export const notifyRecordFilters = {
  status: z.enum(recordStatuses).optional(),
  sendWay: z.enum([...sendWays, 'wechat']).optional(),
  read: bool.optional(),
  sn: z.string().trim().max(64).optional(),
  alarmId: entityId.optional(),
};

// ---------------------------------------------------------------- notification settings (spec §2)
/** How notifications leave the platform: which channels are configured (never their credentials), and the caps. */
export const notifySettings = z.object({
  channels: z.array(
    z.object({
      kind: z.enum(['email', 'sms', 'wechat', 'dingtalk', 'inApp']),
      configured: z.boolean(),
      /** Whose settings carry it: the tenant's own, the platform's (environment), or none (local outbox). */
      source: z.enum(['tenant', 'platform']).nullable().optional(),
      /** Where it goes (an SMTP host, an SMS endpoint host), never a password or key. */
      target: z.string().nullable(),
      /** The environment variables that configure it. */
      variables: z.array(z.string()),
    }),
  ),
  tenantPerMinute: z.number().int(),
  contactPerMinute: z.number().int(),
  retryMs: z.number().int(),
  ticketReminderMin: z.number().int(),
});
export type NotifySettings = z.infer<typeof notifySettings>;

// ---------------------------------------------------------------- per-tenant notification settings
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM');
/** During quiet hours no SMS and no WeChat go out, except alarms at `minLevel` or above; in-app and email still do. */
export const quietHours = z
  .object({
    start: hhmm,
    end: hhmm,
    minLevel: z.number().int().min(1).max(5),
    timeZone,
  })
  .strict();
export type QuietHours = z.infer<typeof quietHours>;

/** Is `at` inside the quiet hours (a window across midnight when start > end)? */
export function inQuietHours(quiet: QuietHours, at: Date): boolean {
  const local = new Intl.DateTimeFormat('en-GB', { timeZone: quiet.timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    at,
  );
  if (quiet.start === quiet.end) return false;
  return quiet.start < quiet.end ? local >= quiet.start && local < quiet.end : local >= quiet.start || local < quiet.end;
}

/** The credentials of a tenant's channels: kept beside the event log (notify_channel_secrets), never in an event or an answer. */
export const notifySecretKeys = [
  'smtpUrl',
  'smsAccessKeyId',
  'smsAccessKeySecret',
  'wecomWebhook',
  'dingtalkWebhook',
  'dingtalkSecret',
] as const;
export type NotifySecretKey = (typeof notifySecretKeys)[number];
/** A credential in a settings edit: a string sets it, null removes it, absent keeps what is stored. */
const secretInput = (inner: z.ZodString) => inner.nullable().optional();
const webhook = outboundUrl(['http:', 'https:']);

/** What a tenant sets of its notifications that may be shown and logged: no credential among them. */
export const notifySettingsFields = z
  .object({
    smtpFrom: z
      .string()
      .trim()
      .email()
      .max(128)
      .nullish()
      .transform((v) => v ?? null),
    smsEndpoint: webhook.nullish().transform((v) => v ?? null),
    smsSignName: text(64).transform((v) => v ?? null),
    smsTemplateCode: text(64).transform((v) => v ?? null),
    /** Caps per minute; null takes the platform's (NOTIFY_TENANT_PER_MIN, NOTIFY_CONTACT_PER_MIN). */
    tenantPerMinute: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .nullish()
      .transform((v) => v ?? null),
    contactPerMinute: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .nullish()
      .transform((v) => v ?? null),
    quietHours: quietHours.nullish().transform((v) => v ?? null),
  })
  .strict();
export type NotifySettingsFields = z.output<typeof notifySettingsFields>;
export const notifySettingsBody = notifySettingsFields
  .extend({
    smtpUrl: secretInput(outboundUrl(['smtp:', 'smtps:'])),
    smsAccessKeyId: secretInput(z.string().trim().min(1).max(128)),
    smsAccessKeySecret: secretInput(z.string().trim().min(1).max(128)),
    wecomWebhook: secretInput(webhook),
    dingtalkWebhook: secretInput(webhook),
    dingtalkSecret: secretInput(z.string().trim().min(1).max(128)),
  })
  .strict();
export type NotifySettingsBody = z.output<typeof notifySettingsBody>;
/** The settings screen's answer: the effective channels and caps, and what the tenant set (credentials only as set or not). */
export const notifySettingsAnswer = notifySettings.extend({
  tenant: z.object({
    smtpFrom: z.string().nullable(),
    smsEndpoint: z.string().nullable(),
    smsSignName: z.string().nullable(),
    smsTemplateCode: z.string().nullable(),
    tenantPerMinute: z.number().int().nullable(),
    contactPerMinute: z.number().int().nullable(),
    // As stored: plain values (the time zone's transform cannot serialise an answer).
    quietHours: quietHours.extend({ timeZone: z.string() }).nullable(),
    /** Which credentials the tenant has stored; never their values. */
    secrets: z.object(Object.fromEntries(notifySecretKeys.map((k) => [k, z.boolean()])) as Record<NotifySecretKey, z.ZodBoolean>),
  }),
});
export type NotifySettingsAnswer = z.infer<typeof notifySettingsAnswer>;

/** Which channels a tenant's own settings make complete (each of the others falls back to the platform's). */
export function tenantChannelKinds(
  fields: Pick<NotifySettingsFields, 'smsEndpoint' | 'smsSignName' | 'smsTemplateCode'> | null,
  secrets: Partial<Record<NotifySecretKey, string>>,
): Record<'email' | 'sms' | 'wechat' | 'dingtalk', boolean> {
  return {
    email: !!secrets.smtpUrl,
    sms: !!(secrets.smsAccessKeyId && secrets.smsAccessKeySecret && fields?.smsEndpoint && fields.smsSignName && fields.smsTemplateCode),
    wechat: !!secrets.wecomWebhook,
    dingtalk: !!secrets.dingtalkWebhook,
  };
}
