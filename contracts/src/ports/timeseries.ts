import type { statCycles, statTypes } from '../constants.ts';
import type { StatExclusion } from '../stat/model.ts';

/** A statistic cycle of spec §9: the width of one aggregate bucket. */
export type StatCycle = (typeof statCycles)[number];
/** A bucket of a history chart: a statistic cycle, or the day chart's 15-minute slot (spec §9: 96 a day). */
export type HistoryBucket = StatCycle | '15m';

/** How a bucket folds its samples; `first`/`last` are the spec's start/end, `diff` is last minus first. */
export const aggregateFns = ['avg', 'sum', 'max', 'min', 'count', 'first', 'last', 'distinctCount', 'diff'] as const;
export type AggregateFn = (typeof aggregateFns)[number];

export type TelemetryQuality = 'good' | 'uncertain' | 'bad';

/** One sample of one variable of one device. */
export interface TelemetryRow {
  tenantId: string;
  deviceId: string;
  productId?: string | null;
  /** The variable's identifier within the product's functions. */
  variable: string;
  /** Sample time; kept to the millisecond. */
  ts: Date;
  /** Numeric reading, null when the variable is not numeric. */
  value: number | null;
  /** Text reading (enum, string, hex), null when absent. */
  text: string | null;
  /** Defaults to 'good'. */
  quality?: TelemetryQuality;
  /** The payload as received, when worth keeping for audit or re-conversion. */
  raw?: string | null;
  /** Days the sample is kept (the device's template's retention period); absent or 0: kept for ever. */
  retentionDays?: number | null;
}

export interface HistoryQuery {
  tenantId: string;
  deviceId: string;
  variable: string;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  limit: number;
  offset: number;
  /** Time order; 'asc' unless told. */
  order?: 'asc' | 'desc';
}

export interface HistoryPage {
  rows: TelemetryRow[];
  /** Rows matching the query, all pages together. */
  total: number;
}

export interface AggregateQuery {
  tenantId: string;
  /** Omit for every device of the tenant. */
  deviceIds?: readonly string[];
  variable: string;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  bucket: HistoryBucket;
  fn: AggregateFn;
  /** IANA zone that day, week (Monday) and month buckets align to; 'UTC' unless told. */
  timeZone?: string;
}

export interface AggregatePoint {
  deviceId: string;
  /** Start of the bucket. */
  bucket: Date;
  /** Null when the bucket has samples but no numeric value to fold. */
  value: number | null;
}

/** Several variables of the same devices folded alike, one row per bucket and device (a report's table). */
export interface AggregateRowsQuery extends Omit<AggregateQuery, 'variable' | 'deviceIds'> {
  /** The rows of a bucket come in this order. */
  deviceIds: readonly string[];
  variables: readonly string[];
}

export interface AggregateRow {
  /** Start of the bucket. */
  bucket: Date;
  deviceId: string;
  /** One per variable of the query, null where the bucket has no numeric sample of it. */
  values: (number | null)[];
}

export interface LatestQuery {
  tenantId: string;
  deviceIds: readonly string[];
  /** Only these variables; all when omitted. */
  variables?: readonly string[];
}

export interface TimeSeriesHealth {
  ok: boolean;
  engine: 'chdb' | 'clickhouse';
  version?: string;
  error?: string;
}

export interface InsertOptions {
  /**
   * Idempotence for at-least-once writers: a second insert with the same token (within the store's window of
   * recent inserts) stores nothing. Derive it from where the rows came from (a bus batch's topic, partition,
   * first and last offset), so that a replay after a crash repeats it. The rows go in one insert of their own.
   */
  dedupToken?: string;
}

/**
 * What a statistic task's run computes (issue 20): for every window of `cycle` (aligned in `timeZone`) that
 * meets [from, to), one value per key, written to the store's results and replacing what an earlier run of the
 * same windows wrote (late samples recompute their windows).
 */
export interface StatComputation {
  tenantId: string;
  taskId: string;
  variable: string;
  statType: (typeof statTypes)[number];
  cycle: StatCycle;
  from: Date;
  to: Date;
  timeZone: string;
  exclusion: StatExclusion;
  /**
   * Whose samples, under which key: each device its own key; the tenant's devices under the tenant id; or the
   * devices of a map under the key it gives them (a group or product id).
   */
  keys: { kind: 'device'; deviceIds?: readonly string[] } | { kind: 'tenant' } | { kind: 'map'; keyOf: Readonly<Record<string, string>> };
}

export interface StatResultQuery {
  tenantId: string;
  taskId: string;
  /** Windows starting at or after. */
  from: Date;
  /** Windows starting before. */
  to: Date;
  key?: string;
  limit: number;
}

export interface StatResultPoint {
  windowStart: Date;
  key: string;
  value: number | null;
  samples: number;
}

/** What the home dashboard counts: samples since the start of the day, and over the last minute. */
export interface SampleCountQuery {
  tenantId: string;
  /** Omit for every device of the tenant. */
  deviceIds?: readonly string[];
  since: Date;
  recentSince: Date;
}

/** A part of the local day a price applies to, in minutes from midnight; an end at or before the start crosses midnight. */
export interface EnergyPeriod {
  startMinute: number;
  endMinute: number;
}

/** Energy used per window (day or month in the zone) by meters whose variable is a cumulative counter (kWh). */
export interface EnergyQuery {
  tenantId: string;
  /** The meters (a station's devices). */
  deviceIds: readonly string[];
  /** The cumulative energy variable. */
  variable: string;
  /** Windows starting at or after; the reading before `from` (up to a day before) counts as the first one's start. */
  from: Date;
  to: Date;
  window: '1d' | '1M';
  timeZone: string;
  /** The day's price periods: each point is split by the period its readings fall in (none: one total per window). */
  periods: readonly EnergyPeriod[];
}

export interface EnergyPoint {
  windowStart: Date;
  /** The index of the period in the query's, or null for minutes no period covers (and when none was asked for). */
  period: number | null;
  /** The counter's increase over the window (a counter that went down was reset: its new reading is the increase). */
  kwh: number;
}

/** The telemetry store: every read is confined to one tenant. */
export interface TimeSeriesStore {
  readonly engine: 'chdb' | 'clickhouse';
  /** Creates what is missing; safe to run at every start. */
  migrate(): Promise<void>;
  /** Writes a batch; resolves once the rows are stored. */
  insertTelemetry(rows: TelemetryRow[], options?: InsertOptions): Promise<void>;
  queryHistory(query: HistoryQuery): Promise<HistoryPage>;
  /** One point per device and bucket that has samples, ordered by device then bucket. */
  aggregate(query: AggregateQuery): Promise<AggregatePoint[]>;
  /**
   * The rows of `aggregate` for several variables at once, in pages, oldest bucket first, then in the order of the
   * query's devices: a bucket and device with no sample of any variable has no row. Read a bounded slice of the range
   * at a time, so that a long report is never held whole, by the store or by the caller.
   */
  aggregateRows(query: AggregateRowsQuery): AsyncIterable<AggregateRow[]>;
  /** The last sample per device and variable. */
  latest(query: LatestQuery): Promise<TelemetryRow[]>;
  /** Computes a statistic task's windows inside the store and keeps the results there. */
  computeStat(computation: StatComputation): Promise<void>;
  /**
   * Keeps results computed elsewhere (alarm statistics, folded in PostgreSQL over the alarms' read model), replacing
   * those of the same windows and keys as a run of `computeStat` does.
   */
  putStatResults(tenantId: string, taskId: string, points: readonly StatResultPoint[]): Promise<void>;
  /** Stored results of a task, oldest window first, then by key. */
  statResults(query: StatResultQuery): Promise<StatResultPoint[]>;
  /** Forgets every result of a task (a deleted one). */
  deleteStatResults(tenantId: string, taskId: string): Promise<void>;
  /** How many samples of the tenant (of these devices) have a sample time at or after `since`, and at or after `recentSince`. */
  countSamples(query: SampleCountQuery): Promise<{ since: number; recent: number }>;
  /** Energy consumption per window and price period, folded in the store from the 5-minute rollup's last readings. */
  energyConsumption(query: EnergyQuery): Promise<EnergyPoint[]>;
  health(): Promise<TimeSeriesHealth>;
  /** Flushes pending writes and releases the engine. */
  close(): Promise<void>;
}
