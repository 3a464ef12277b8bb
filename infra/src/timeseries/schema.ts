/**
 * The telemetry table. One DDL for chDB and ClickHouse server. Retention: each row carries the days it is kept
 * (its device's template's retention period, 0 for ever), and a TTL deletes it once that has passed since its
 * sample time, in the background merges (ClickHouse runs TTL merges at most every `merge_with_ttl_timeout`, 4 h).
 */
export const TELEMETRY_TABLE = 'telemetry';

/**
 * Inserts whose deduplication token is among the table's last this many are dropped (at-least-once writers
 * replaying a batch after a crash, issue 11); a MergeTree without replication keeps none unless told.
 */
export const DEDUPLICATION_WINDOW = 1000;
/** Also applied to tables created before the setting was, the rollups too (ALTER ... MODIFY SETTING is idempotent). */
export const dedupSettingDdl = (table: string): string =>
  `ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/** Rows whose retention (days after their sample time) has passed; 0 keeps a row. */
export const TELEMETRY_TTL = 'toDateTime(ts) + toIntervalDay(retention_days) WHERE retention_days > 0';
/** A rollup row is kept as long as the longest-kept of its samples: KEEP_DAYS stands for "for ever". */
const KEEP_DAYS = 65_535;
export const ROLLUP_TTL = `bucket + toIntervalDay(retention_days) WHERE retention_days < ${KEEP_DAYS}`;

/**
 * What an older release's tables lack, as idempotent statements given what the table has now (its columns
 * with their codecs, and its engine clause): the value codec, the retention column and the TTL. A TTL added
 * later is not applied to existing parts at once (`materialize_ttl_after_modify = 0`): their rows are kept
 * for ever (retention 0) anyway, and rewriting every part at start would stall it.
 */
export function telemetryMigrations(table: string, has: { codecs: Map<string, string>; engineFull: string }): string[] {
  const out: string[] = [];
  if (!has.codecs.get('value')?.includes('Gorilla'))
    out.push(`ALTER TABLE ${table} MODIFY COLUMN value Nullable(Float64) CODEC(Gorilla, ZSTD(1))`);
  if (!has.codecs.has('retention_days')) out.push(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0`);
  if (!has.engineFull.includes(' TTL ')) out.push(`ALTER TABLE ${table} MODIFY TTL ${TELEMETRY_TTL}`);
  return out;
}

/** The same for a rollup table of an older release (its materialized view is dropped first and made again). */
export function rollupMigrations(target: string, has: { codecs: Map<string, string>; engineFull: string }): string[] {
  const out: string[] = [];
  if (!has.codecs.has('retention_days'))
    out.push(`ALTER TABLE ${target} ADD COLUMN IF NOT EXISTS retention_days SimpleAggregateFunction(max, UInt16) DEFAULT ${KEEP_DAYS}`);
  if (!has.engineFull.includes(' TTL ')) out.push(`ALTER TABLE ${target} MODIFY TTL ${ROLLUP_TTL}`);
  return out;
}

export const telemetryTableDdl = (table: string = TELEMETRY_TABLE): string => `
CREATE TABLE IF NOT EXISTS ${table}
(
  tenant_id   LowCardinality(String),
  device_id   String,
  product_id  LowCardinality(String) DEFAULT '',
  variable    LowCardinality(String),
  ts          DateTime64(3, 'UTC') CODEC(DoubleDelta, ZSTD(1)),
  value       Nullable(Float64) CODEC(Gorilla, ZSTD(1)),
  text        Nullable(String),
  quality     Enum8('good' = 0, 'uncertain' = 1, 'bad' = 2) DEFAULT 'good',
  raw         Nullable(String) CODEC(ZSTD(3)),
  received_at DateTime64(3, 'UTC') DEFAULT now64(3),
  retention_days UInt16 DEFAULT 0
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, device_id, variable, ts)
TTL ${TELEMETRY_TTL}
SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/**
 * The 5-minute and hourly rollups (ClickHouse's time-series guidance): AggregatingMergeTree tables fed by
 * materialized views on every insert, holding the states of avg, sum, min, max, count, first and last, so
 * that day charts and statistic cycles read a few rows per bucket instead of every sample. Buckets are UTC;
 * a query in a time zone folds them into its own buckets (every real offset is a multiple of 5 minutes).
 */
export const rollups = [
  { suffix: '5m', start: 'toStartOfFiveMinutes(ts)', stepMs: 5 * 60_000 },
  { suffix: '1h', start: 'toStartOfHour(ts)', stepMs: 60 * 60_000 },
] as const;
export type Rollup = (typeof rollups)[number];

export const rollupTableDdl = (table: string, rollup: Rollup): string => `
CREATE TABLE IF NOT EXISTS ${table}_${rollup.suffix}
(
  tenant_id LowCardinality(String),
  device_id String,
  variable  LowCardinality(String),
  bucket    DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  avg_s     AggregateFunction(avg, Float64),
  sum_s     SimpleAggregateFunction(sum, Float64),
  min_s     SimpleAggregateFunction(min, Float64),
  max_s     SimpleAggregateFunction(max, Float64),
  cnt_s     SimpleAggregateFunction(sum, UInt64),
  first_s   AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  last_s    AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  retention_days SimpleAggregateFunction(max, UInt16) DEFAULT ${KEEP_DAYS}
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (tenant_id, device_id, variable, bucket)
TTL ${ROLLUP_TTL}
SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/**
 * What the materialized view (and the one-time backfill of rows stored before the rollup existed) selects:
 * the 5-minute rollup from the raw samples, the hourly one from the 5-minute rows (chained, so that each
 * insert groups the raw samples once).
 */
export const rollupSelect = (table: string, rollup: Rollup): string =>
  rollup.suffix === '1h'
    ? `
SELECT tenant_id, device_id, variable, toStartOfHour(bucket) AS bucket,
       avgMergeState(avg_s) AS avg_s, sum(sum_s) AS sum_s, min(min_s) AS min_s, max(max_s) AS max_s, sum(cnt_s) AS cnt_s,
       argMinMergeState(first_s) AS first_s, argMaxMergeState(last_s) AS last_s, max(retention_days) AS retention_days
FROM ${table}_5m
GROUP BY tenant_id, device_id, variable, bucket`
    : `
SELECT tenant_id, device_id, variable, ${rollup.start} AS bucket,
       avgState(v) AS avg_s, sum(v) AS sum_s, min(v) AS min_s, max(v) AS max_s, count() AS cnt_s,
       argMinState(v, ts) AS first_s, argMaxState(v, ts) AS last_s, max(keep) AS retention_days
FROM (SELECT tenant_id, device_id, variable, ts, assumeNotNull(value) AS v, if(retention_days = 0, toUInt16(${KEEP_DAYS}), retention_days) AS keep
      FROM ${table} WHERE value IS NOT NULL)
GROUP BY tenant_id, device_id, variable, bucket`;

/**
 * Samples stored per tenant and second (the home dashboard's "today's data points" and ingest rate): a materialized
 * view counts each insert's rows, so that a day's count reads at most 86,400 rows instead of every sample. Kept 3 days
 * (a day cut in any zone starts less than 38 hours ago); older counts are asked of the raw table.
 */
export const SAMPLE_COUNTS_DAYS = 3;
export const sampleCountsDdl = (table: string): string => `
CREATE TABLE IF NOT EXISTS ${table}_counts
(
  tenant_id LowCardinality(String),
  second    DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
  n         UInt64
)
ENGINE = SummingMergeTree(n)
PARTITION BY toYYYYMMDD(second)
ORDER BY (tenant_id, second)
TTL second + toIntervalDay(${SAMPLE_COUNTS_DAYS})
SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}, ttl_only_drop_parts = 1`;
export const sampleCountsSelect = (table: string, where = ''): string =>
  `SELECT tenant_id, toDateTime(ts, 'UTC') AS second, count() AS n FROM ${table} ${where} GROUP BY tenant_id, second`;
