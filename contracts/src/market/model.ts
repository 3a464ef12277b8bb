import { z } from 'zod';
import { identifier } from '../device/thing-model.ts';
import { entityId, optionalText, timeZone } from '../identity/common.ts';
import { reportCycles, reportFns } from '../report/model.ts';

/**
 * What a data set publishes (issue 20, spec §2 data market): a device group's variables folded per cycle, a
 * statistic task's results, or a saved report; always over the last `windowDays` days at the time of the call.
 */
export const marketSourceKinds = ['deviceData', 'statResult', 'report'] as const;
export type MarketSourceKind = (typeof marketSourceKinds)[number];
export const marketSource = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('deviceData'),
      groupId: entityId,
      variables: z.array(identifier).min(1).max(10),
      fn: z.enum(reportFns),
      cycle: z.enum(reportCycles),
      timeZone: timeZone.default('Asia/Shanghai'),
    })
    .strict(),
  z.object({ kind: z.literal('statResult'), taskId: entityId }).strict(),
  z.object({ kind: z.literal('report'), reportId: entityId }).strict(),
]);
export type MarketSource = z.output<typeof marketSource>;

/**
 * Who may subscribe to a data set (spec §6, the sharing rules of app keys): `internal` the publishing tenant's own
 * apps; `chosen` also the apps of the tenants named in `sharedWith`; `global` the apps of any tenant.
 */
export const marketSharings = ['internal', 'chosen', 'global'] as const;
export type MarketSharing = (typeof marketSharings)[number];

export const marketDatasetFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    source: marketSource,
    /** The window each call answers: the last N days up to the call. */
    windowDays: z.number().int().min(1).max(92).default(7),
    description: optionalText(256),
    sharing: z.enum(marketSharings).default('internal'),
    /** The tenants a `chosen` data set is shared with (their ids); empty otherwise. */
    sharedWith: z.array(entityId).max(50).default([]),
  })
  .strict()
  .superRefine((fields, ctx) => {
    if (fields.sharing === 'chosen' && fields.sharedWith.length === 0)
      ctx.addIssue({ code: 'custom', path: ['sharedWith'], message: 'sharedWith: name at least one tenant to share with' });
    if (fields.sharing !== 'chosen' && fields.sharedWith.length > 0)
      ctx.addIssue({ code: 'custom', path: ['sharedWith'], message: 'sharedWith: only a data set shared with chosen tenants names them' });
  });
export type MarketDatasetFields = z.output<typeof marketDatasetFields>;
export const marketDatasetUpdateBody = marketDatasetFields.safeExtend({ id: entityId });

/** A source as an answer carries it: the stored values, no transforms (an answer's schema is encoded). */
const marketSourceAnswer = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('deviceData'),
    groupId: z.string(),
    variables: z.array(z.string()),
    fn: z.enum(reportFns),
    cycle: z.enum(reportCycles),
    timeZone: z.string(),
  }),
  z.object({ kind: z.literal('statResult'), taskId: z.string() }),
  z.object({ kind: z.literal('report'), reportId: z.string() }),
]);
export const marketDatasetRow = z.object({
  id: z.string(),
  name: z.string(),
  source: marketSourceAnswer,
  windowDays: z.number().int(),
  description: z.string().nullable(),
  sharing: z.enum(marketSharings),
  sharedWith: z.array(z.string()),
  /** Subscriptions not revoked. */
  subscribers: z.number().int(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type MarketDatasetRow = z.infer<typeof marketDatasetRow>;
export const marketDatasetSortable = ['createTime', 'name'] as const;

/** `publisherTenantId`: the tenant that published the data set, when it is another tenant's (shared with the caller's). */
export const marketSubscribeBody = z.object({ datasetId: entityId, appId: entityId, publisherTenantId: entityId.optional() }).strict();
export const marketSubscriptionStatuses = ['active', 'revoked'] as const;
export const marketSubscriptionRow = z.object({
  id: z.string(),
  datasetId: z.string(),
  datasetName: z.string().nullable(),
  appId: z.string(),
  appName: z.string().nullable(),
  /** The tenant whose app subscribed: the caller's own, or (on the publisher's side) a tenant it shares with. */
  subscriberTenantId: z.string(),
  publisherTenantId: z.string(),
  status: z.enum(marketSubscriptionStatuses),
  /** Calls of the data endpoint under this subscription, counted atomically. */
  calls: z.number().int(),
  lastCallTime: z.string().nullable(),
  createTime: z.string(),
});
export type MarketSubscriptionRow = z.infer<typeof marketSubscriptionRow>;
export const marketSubscriptionSortable = ['createTime'] as const;

/** A data set another tenant shares with the caller's, as the caller's "shared with us" list shows it. */
export const marketSharedRow = z.object({
  id: z.string(),
  name: z.string(),
  publisherTenantId: z.string(),
  publisherName: z.string().nullable(),
  sourceKind: z.enum(marketSourceKinds),
  windowDays: z.number().int(),
  description: z.string().nullable(),
  sharing: z.enum(marketSharings),
  createTime: z.string(),
});
export type MarketSharedRow = z.infer<typeof marketSharedRow>;

export const marketDataQuery = z.object({ datasetId: entityId }).strict();
/** A data set's answer: a table (columns, then rows of cells) over [from, to). */
export const marketData = z.object({
  datasetId: z.string(),
  name: z.string(),
  from: z.string(),
  to: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.union([z.string(), z.number(), z.null()]))),
});
export type MarketData = z.infer<typeof marketData>;
