import { Cron } from 'croner';
import { z } from 'zod';
import { comparisonOperators, sceneTriggers } from '../constants.ts';
import { identifier } from '../device/thing-model.ts';
import { enabledStatuses, entityId, instant, optionalText, timeZone } from '../identity/common.ts';

export type SceneTriggerType = (typeof sceneTriggers)[number];

/** A cron expression croner parses (5 fields, or 6 with seconds first); a refusal names SCENE_CRON_INVALID. */
export const cronExpression = z
  .string()
  .trim()
  .min(9)
  .max(120)
  .refine(
    (expr) => {
      try {
        new Cron(expr, { paused: true });
        return true;
      } catch {
        return false;
      }
    },
    { error: 'SCENE_CRON_INVALID' },
  );

/** A value a property is compared with: a number, or a text or boolean compared for equality. */
const comparedValue = z.union([z.number().finite(), z.boolean(), z.string().max(256)]);

/** What a device does that starts a scene: goes online or offline, or a property's report meets a comparison. */
export const deviceMatch = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('status'), status: z.enum(['online', 'offline']) }).strict(),
  z.object({ kind: z.literal('property'), identifier, operator: z.enum(comparisonOperators), value: comparedValue }).strict(),
]);
export type DeviceMatch = z.infer<typeof deviceMatch>;

/** Spec §9 triggers: timing (a cron schedule in a zone), device (status change or property condition), invoke (manual or API). */
export const sceneTrigger = z.discriminatedUnion('type', [
  z.object({ type: z.literal('timing'), cron: cronExpression, timeZone: timeZone.default('Asia/Shanghai') }).strict(),
  z.object({ type: z.literal('device'), deviceId: entityId, match: deviceMatch }).strict(),
  z.object({ type: z.literal('invoke') }).strict(),
]);
export type SceneTrigger = z.infer<typeof sceneTrigger>;

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'HH:mm' });

/** Spec §9 conditions: device status (online, offline, or a property's latest value) and a time window. */
export const sceneCondition = z.discriminatedUnion('type', [
  z.object({ type: z.literal('deviceStatus'), deviceId: entityId, status: z.enum(['online', 'offline']) }).strict(),
  z
    .object({
      type: z.literal('deviceProperty'),
      deviceId: entityId,
      identifier,
      operator: z.enum(comparisonOperators),
      value: comparedValue,
    })
    .strict(),
  z
    .object({
      type: z.literal('time'),
      /** Start and end of the window, local time; an end before the start spans midnight. */
      from: clock,
      to: clock,
      /** ISO weekdays 1 (Monday) to 7; empty for every day. */
      weekdays: z.array(z.number().int().min(1).max(7)).max(7).default([]),
      timeZone: timeZone.default('Asia/Shanghai'),
    })
    .strict(),
]);
export type SceneCondition = z.infer<typeof sceneCondition>;

const params = z.record(z.string().max(64), z.unknown());

/** Spec §9 actions: device status (a property set or a service invoked), rotation control, notify, and another scene enabled or stopped. */
export const sceneAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('setProperty'), deviceId: entityId, identifier, value: z.unknown() }).strict(),
  z.object({ type: z.literal('invokeService'), deviceId: entityId, identifier, params: params.default({}) }).strict(),
  z
    .object({
      type: z.literal('rotation'),
      /** Devices that take turns, in order: each run of the scene gives the next one its turn. */
      deviceIds: z.array(entityId).min(2).max(50),
      identifier,
      /** Set on the device whose turn it is; `offValue` on the others. */
      onValue: z.unknown(),
      offValue: z.unknown(),
    })
    .strict(),
  z.object({ type: z.literal('sceneStatus'), sceneId: entityId, status: z.enum(enabledStatuses) }).strict(),
  /** Sends a notification through a notification configuration: its template, send ways and contacts, by the outbox. */
  z.object({ type: z.literal('notify'), configId: entityId, deviceId: entityId.optional() }).strict(),
]);
export type SceneAction = z.infer<typeof sceneAction>;

export const sceneFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    description: optionalText(256),
    triggers: z.array(sceneTrigger).min(1).max(10),
    /** `all`: every condition must hold; `any`: one is enough. No condition: always. */
    conditionMode: z.enum(['all', 'any']).default('all'),
    conditions: z.array(sceneCondition).max(10).default([]),
    actions: z.array(sceneAction).min(1).max(20),
  })
  .strict();
export type SceneFields = z.output<typeof sceneFields>;
export const sceneCreateBody = sceneFields;
export const sceneUpdateBody = sceneFields.safeExtend({ id: entityId });
/** Enabling or stopping a scene is its own route: the screen asks for a confirm first. */
export const sceneStatusBody = z.object({ id: entityId, status: z.enum(enabledStatuses) }).strict();

export const sceneRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(enabledStatuses),
  triggers: z.array(z.unknown()),
  conditionMode: z.enum(['all', 'any']),
  conditions: z.array(z.unknown()),
  actions: z.array(z.unknown()),
  /** The time of its latest run, null before its first. */
  lastRunTime: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type SceneRow = Omit<z.infer<typeof sceneRow>, 'triggers' | 'conditions' | 'actions'> & {
  triggers: SceneTrigger[];
  conditions: SceneCondition[];
  actions: SceneAction[];
};
export const sceneSortable = ['createTime', 'name'] as const;
export const sceneFilters = {
  name: z.string().trim().max(64).optional(),
  status: z.enum(enabledStatuses).optional(),
};

/** How a run ended: every action done, some failed, all failed, the conditions did not hold (nothing done), or not finished yet. */
export const linkageResults = ['success', 'partial', 'failed', 'skipped', 'running'] as const;
export type LinkageResult = (typeof linkageResults)[number];

export const linkageConditionResult = z.object({ condition: z.unknown(), result: z.boolean(), detail: z.string().nullable() });
export type LinkageConditionResult = { condition: SceneCondition; result: boolean; detail: string | null };
export const linkageActionResult = z.object({
  action: z.unknown(),
  /** The device the action went to (for a rotation: the device whose turn it was). */
  target: z.string().nullable(),
  ok: z.boolean(),
  error: z.string().nullable(),
});
export type LinkageActionResult = { action: SceneAction; target: string | null; ok: boolean; error: string | null };

/** One row of the linkage log (spec §3): trigger type and content, conditions and their result, actions, duration, time. */
export const linkageLogRow = z.object({
  id: z.string(),
  sceneId: z.string(),
  sceneName: z.string(),
  triggerType: z.enum(sceneTriggers),
  /** What set it off, in words a person reads: the cron and fire time, the device and its value, who invoked it. */
  triggerContent: z.string(),
  conditions: z.array(linkageConditionResult),
  actions: z.array(linkageActionResult),
  result: z.enum(linkageResults),
  durationMs: z.number().int(),
  time: z.string(),
});
export type LinkageLogRow = z.infer<typeof linkageLogRow>;
export const linkageLogSortable = ['time', 'durationMs'] as const;
export const linkageLogFilters = {
  sceneId: entityId.optional(),
  result: z.enum(linkageResults).optional(),
  triggerType: z.enum(sceneTriggers).optional(),
  /** Runs at or after. */
  from: instant.optional(),
  /** Runs before. */
  to: instant.optional(),
};

/** Spec §2 "Rule list": every rule of the tenant in one list, whatever its kind. */
export const ruleKinds = ['alarmRule', 'ruleChain', 'scene'] as const;
export type RuleKind = (typeof ruleKinds)[number];
export const ruleListRow = z.object({
  kind: z.enum(ruleKinds),
  id: z.string(),
  name: z.string(),
  /** `enabled` or `stopped`; a rule chain runs while it exists, so it is always `enabled`. */
  status: z.enum(enabledStatuses),
  /** What it does, in short: the alarm rule's variable and mode, the chain's running version, the scene's trigger types. */
  summary: z.string(),
  /** When it last fired: the latest alarm it raised, the chain's latest message, the scene's latest run; null when never. */
  lastTriggerTime: z.string().nullable(),
  updateTime: z.string(),
});
export type RuleListRow = z.infer<typeof ruleListRow>;
export const ruleListFilters = {
  kind: z.enum(ruleKinds).optional(),
  name: z.string().trim().max(64).optional(),
  status: z.enum(enabledStatuses).optional(),
};
