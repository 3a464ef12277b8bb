import { z } from 'zod';
import { outboundUrl } from '../http/outbound-url.ts';
import { enabledStatuses, entityId, optionalText } from '../identity/common.ts';
import { outboundErrorClasses } from '../ports/outbound-http.ts';

// ---------------------------------------------------------------- forwarding servers (spec §3 MQTT server, HTTP server)
export const forwardServerTypes = ['mqtt', 'http'] as const;
export type ForwardServerType = (typeof forwardServerTypes)[number];

const name = z.string().trim().min(1).max(64);
/** Spec §5: "IP must be IPv4 form such as {ip}". */
export const ipv4 = z
  .string()
  .trim()
  .regex(/^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/, { message: 'IP must be IPv4 form such as 192.168.1.10' });
/** Spec §5: "Port required, at most 65535". */
export const port = z.number().int().min(1).max(65535);

/** An MQTT broker forwarded to: where, as whom, over TLS or not (the password is answered only as set or not). */
export const mqttServerFields = z
  .object({
    name,
    ip: ipv4,
    port,
    username: optionalText(64),
    clientId: optionalText(128),
    tls: z.boolean().default(false),
    remark: optionalText(256),
  })
  .strict();
/** A password: a string sets it, null removes it, absent keeps the stored one. */
const secret = z.string().min(1).max(128).nullish();
export const mqttServerCreateBody = mqttServerFields.extend({ password: secret }).strict();
export const mqttServerUpdateBody = mqttServerCreateBody.extend({ id: entityId }).strict();

/** The most messages one POST to an HTTP target carries when it takes batches. */
export const maxForwardBatch = 500;
/**
 * An HTTP(S) endpoint forwarded to. With `batchSize` 1 (the default, and every server saved before it existed) each
 * message is POSTed to its URL as the rule's payload; above 1, up to that many messages go in one POST as a JSON
 * array of `{ id, deviceId, payload }` (`payload` the rule's payload, as JSON when it is JSON, else as a string), in
 * order per device; a message counts as delivered only when its POST is answered 2xx, so a target drops repeats by `id`.
 */
export const httpServerFields = z
  .object({
    name,
    url: outboundUrl(['http:', 'https:']),
    remark: optionalText(256),
    batchSize: z.number().int().min(1).max(maxForwardBatch).default(1),
  })
  .strict();
export const httpServerUpdateBody = httpServerFields.extend({ id: entityId }).strict();

/** What a forwarding server's events carry, either type: the URL's host and port are kept for an HTTP one as its IP and port. */
export interface ForwardServerFields {
  type: ForwardServerType;
  name: string;
  ip: string;
  port: number;
  url: string | null;
  username: string | null;
  clientId: string | null;
  tls: boolean;
  remark: string | null;
  hasPassword: boolean;
  /** Messages per POST to an HTTP target; absent (events before it existed) is 1. */
  batchSize?: number;
}
export const forwardServerRow = z.object({
  id: z.string(),
  type: z.enum(forwardServerTypes),
  name: z.string(),
  ip: z.string(),
  port: z.number().int(),
  url: z.string().nullable(),
  username: z.string().nullable(),
  clientId: z.string().nullable(),
  tls: z.boolean(),
  remark: z.string().nullable(),
  hasPassword: z.boolean(),
  batchSize: z.number().int(),
  createTime: z.string(),
});
export type ForwardServerRow = z.output<typeof forwardServerRow>;
export const forwardServerSortable = ['createTime', 'name'] as const;
/** A connection test: reached or not, the failure as a class the tenant may see, and how long it took. */
export const forwardTestResult = z.object({
  ok: z.boolean(),
  error: z.enum(outboundErrorClasses).nullable(),
  ms: z.number().int(),
});

// ---------------------------------------------------------------- forwarding rules
export const forwardMessageTypes = ['telemetry', 'event'] as const;
export type ForwardMessageType = (typeof forwardMessageTypes)[number];
/** The names a payload template or an MQTT topic may hold as `{{name}}`. */
export const forwardVariables = ['deviceId', 'productId', 'type', 'ts', 'values', 'identifier', 'payload'] as const;
const topicVariables = ['deviceId', 'productId', 'type'] as const;

const holes = (text: string) => [...text.matchAll(/\{\{\s*([^}\s]*)\s*\}\}/g)].map((m) => m[1]!);
export const payloadTemplate = z
  .string()
  .max(4000)
  .nullish()
  .transform((v) => (v?.trim() ? v : null))
  .superRefine((text, ctx) => {
    for (const hole of holes(text ?? ''))
      if (!(forwardVariables as readonly string[]).includes(hole))
        ctx.addIssue({ code: 'custom', message: `payloadTemplate: unknown variable {{${hole}}}; known: ${forwardVariables.join(', ')}` });
  });
/** The topic an MQTT target publishes on: no wildcard, holes for the device, its product and the message type. */
export const forwardTopic = z
  .string()
  .trim()
  .max(256)
  .nullish()
  .transform((v) => (v ? v : null))
  .superRefine((text, ctx) => {
    if (text && /[#+\0]/.test(text)) ctx.addIssue({ code: 'custom', message: 'topic: no wildcard (+ or #) in a topic to publish on' });
    for (const hole of holes(text ?? ''))
      if (!(topicVariables as readonly string[]).includes(hole))
        ctx.addIssue({ code: 'custom', message: `topic: unknown variable {{${hole}}}; known: ${topicVariables.join(', ')}` });
  });
/** Where an MQTT target publishes when its rule names no topic. */
export const defaultForwardTopic = 'forward/{{productId}}/{{deviceId}}/{{type}}';

export const forwardRuleFields = z
  .object({
    name,
    /** Messages of devices of these products. */
    productIds: z.array(entityId).min(1).max(100),
    /** Only these devices of the products (none: every device of them). */
    deviceIds: z.array(entityId).max(1000).default([]),
    messageTypes: z.array(z.enum(forwardMessageTypes)).min(1).max(forwardMessageTypes.length),
    serverId: entityId,
    topic: forwardTopic,
    /** The body sent, `{{values}}` and `{{payload}}` as JSON, the others as text; none: the message as JSON. */
    payloadTemplate,
    status: z.enum(enabledStatuses).default('enabled'),
  })
  .strict();
export type ForwardRuleFields = z.output<typeof forwardRuleFields>;
export const forwardRuleUpdateBody = forwardRuleFields.extend({ id: entityId }).strict();
export const forwardRuleRow = z.object({
  id: z.string(),
  name: z.string(),
  productIds: z.array(z.string()),
  deviceIds: z.array(z.string()),
  messageTypes: z.array(z.enum(forwardMessageTypes)),
  serverId: z.string(),
  serverName: z.string().nullable(),
  serverType: z.enum(forwardServerTypes).nullable(),
  topic: z.string().nullable(),
  payloadTemplate: z.string().nullable(),
  status: z.enum(enabledStatuses),
  createTime: z.string(),
});
export const forwardRuleSortable = ['createTime', 'name'] as const;

/** A message that was not delivered after every retry: kept until it is sent again or deleted. */
export const forwardDeadRow = z.object({
  id: z.string(),
  ruleId: z.string(),
  serverId: z.string(),
  deviceId: z.string(),
  topic: z.string().nullable(),
  /** A dead letter of several messages of the device (a rule chain's batch): a JSON array of their payloads, in order. */
  payload: z.string(),
  /** The messages it holds: retried or deleted together. */
  messages: z.number().int(),
  attempts: z.number().int(),
  error: z.string().nullable(),
  createTime: z.string(),
});

// ---------------------------------------------------------------- MQTT users and topics (spec §3 MQTT auth user, MQTT topic)
export const mqttAccesses = ['subscribe', 'publish', 'both'] as const;
export type MqttAccess = (typeof mqttAccesses)[number];
const mqttPassword = z.string().min(6).max(16);
const username = z
  .string()
  .trim()
  .min(3)
  .max(64)
  .regex(/^[A-Za-z0-9_.@-]+$/, { message: 'username: letters, digits, _ . @ -' });
export const mqttUserFields = z.object({ username, remark: optionalText(256) }).strict();
export type MqttUserFields = z.output<typeof mqttUserFields>;
export const mqttUserCreateBody = mqttUserFields.extend({ password: mqttPassword }).strict();
export const mqttUserUpdateBody = z.object({ id: entityId, remark: optionalText(256) }).strict();
/** A password is changed with the old one (spec §3 "password (old and new)"). */
export const mqttUserPasswordBody = z.object({ id: entityId, oldPassword: z.string().min(1).max(64), newPassword: mqttPassword }).strict();
export const mqttUserRow = z.object({ id: z.string(), username: z.string(), remark: z.string().nullable(), createTime: z.string() });
export const mqttUserSortable = ['createTime', 'username'] as const;

/** Topics the platform keeps for its devices: never granted to an MQTT user, as written or through a wildcard. */
export const deviceTopicRoots = ['devices', 'gateways', 'v1'] as const;
/** A topic filter as MQTT allows it: `+` a whole level, `#` only last; not a system (`$`) topic. */
export const mqttTopicFilter = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .superRefine((topic, ctx) => {
    const levels = topic.split('/');
    const valid = levels.every(
      (l, i) => (l.includes('+') ? l === '+' : true) && (l.includes('#') ? l === '#' && i === levels.length - 1 : true),
    );
    if (!valid || topic.includes('\0')) ctx.addIssue({ code: 'custom', message: 'topic: + stands for a whole level, # only for the last' });
    if (topic.startsWith('$')) ctx.addIssue({ code: 'custom', message: 'topic: no system ($) topic' });
    // A wildcard first level would take in the devices' topics too.
    if ((deviceTopicRoots as readonly string[]).includes(levels[0]!) || /[+#]/.test(levels[0]!))
      ctx.addIssue({ code: 'custom', message: `topic: a first level of its own (${deviceTopicRoots.join('/, ')}/ are the devices')` });
  });
export const mqttAclFields = z.object({ mqttUserId: entityId, topic: mqttTopicFilter, access: z.enum(mqttAccesses) }).strict();
export type MqttAclFields = z.output<typeof mqttAclFields>;
export const mqttAclUpdateBody = mqttAclFields.extend({ id: entityId }).strict();
export const mqttAclRow = z.object({
  id: z.string(),
  mqttUserId: z.string(),
  username: z.string().nullable(),
  topic: z.string(),
  access: z.enum(mqttAccesses),
  createTime: z.string(),
});
export const mqttAclSortable = ['createTime', 'topic'] as const;

/**
 * Whether a granted topic filter covers a topic to publish on, or a filter to subscribe with: every topic the right
 * side names is one the left side names (`+` on the right is covered only by `+` or `#`, `#` only by `#`).
 */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] === '+' ? t[i] === '#' : f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
