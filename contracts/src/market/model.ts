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

export const marketDatasetFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    source: marketSource,
    /** The window each call answers: the last N days up to the call. */
    windowDays: z.number().int().min(1).max(92).default(7),
    description: optionalText(256),
  })
  .strict();
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
  /** Subscriptions not revoked. */
  subscribers: z.number().int(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type MarketDatasetRow = z.infer<typeof marketDatasetRow>;
export const marketDatasetSortable = ['createTime', 'name'] as const;

export const marketSubscribeBody = z.object({ datasetId: entityId, appId: entityId }).strict();
export const marketSubscriptionStatuses = ['active', 'revoked'] as const;
export const marketSubscriptionRow = z.object({
  id: z.string(),
  datasetId: z.string(),
  datasetName: z.string().nullable(),
  appId: z.string(),
  appName: z.string().nullable(),
  status: z.enum(marketSubscriptionStatuses),
  /** Calls of the data endpoint under this subscription, counted atomically. */
  calls: z.number().int(),
  lastCallTime: z.string().nullable(),
  createTime: z.string(),
});
export type MarketSubscriptionRow = z.infer<typeof marketSubscriptionRow>;
export const marketSubscriptionSortable = ['createTime'] as const;

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
