/** The telemetry table. One DDL for chDB and ClickHouse server; no TTL: retention is an operator's choice. */
export const TELEMETRY_TABLE = 'telemetry';

export const telemetryTableDdl = (table: string = TELEMETRY_TABLE): string => `
CREATE TABLE IF NOT EXISTS ${table}
(
  tenant_id   LowCardinality(String),
  device_id   String,
  product_id  LowCardinality(String) DEFAULT '',
  variable    LowCardinality(String),
  ts          DateTime64(3, 'UTC') CODEC(DoubleDelta, ZSTD(1)),
  value       Nullable(Float64),
  text        Nullable(String),
  quality     Enum8('good' = 0, 'uncertain' = 1, 'bad' = 2) DEFAULT 'good',
  raw         Nullable(String) CODEC(ZSTD(3)),
  received_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, device_id, variable, ts)`;

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
  last_s    AggregateFunction(argMax, Float64, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (tenant_id, device_id, variable, bucket)`;

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
       argMinMergeState(first_s) AS first_s, argMaxMergeState(last_s) AS last_s
FROM ${table}_5m
GROUP BY tenant_id, device_id, variable, bucket`
    : `
SELECT tenant_id, device_id, variable, ${rollup.start} AS bucket,
       avgState(v) AS avg_s, sum(v) AS sum_s, min(v) AS min_s, max(v) AS max_s, count() AS cnt_s,
       argMinState(v, ts) AS first_s, argMaxState(v, ts) AS last_s
FROM (SELECT tenant_id, device_id, variable, ts, assumeNotNull(value) AS v FROM ${table} WHERE value IS NOT NULL)
GROUP BY tenant_id, device_id, variable, bucket`;
