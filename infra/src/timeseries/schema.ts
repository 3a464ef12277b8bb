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

/**
 * Merges of the telemetry table (issue 23): every insert is a part, and ClickHouse's background merges rewrote each row
 * several times over. Under ingest they were the machine's largest CPU user (in the `rule-chain` bench 0.5-0.7 of a
 * core on this 2-core VM, more than the platform's main thread). `merge_selector_base` (5 by default) is how much a
 * merge must gain before it is chosen: at 10 a row is rewritten fewer times, for a few more parts between merges
 * (a probe of 32,000 rows/s in 20 inserts a second: merge threads 0.37 → 0.18 of a core, active parts 8 → 13).
 */
export const MERGE_SELECTOR_BASE = 10;
/** Applied at every start where the engine knows the setting (a server older than it keeps its default). */
export const mergeSettingDdl = (table: string): string =>
  `ALTER TABLE ${table} MODIFY SETTING merge_selector_base = ${MERGE_SELECTOR_BASE}`;

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

/** The same for a rollup table of an older release (whose materialized view is dropped first: the rollup job feeds it now). */
export function rollupMigrations(target: string, has: { codecs: Map<string, string>; engineFull: string }): string[] {
  const out: string[] = [];
  if (!has.codecs.has('retention_days'))
    out.push(`ALTER TABLE ${target} ADD COLUMN IF NOT EXISTS retention_days SimpleAggregateFunction(max, UInt16) DEFAULT ${KEEP_DAYS}`);
  if (!has.engineFull.includes(' TTL ')) out.push(`ALTER TABLE ${target} MODIFY TTL ${ROLLUP_TTL}`);
  return out;
}

/**
 * The rollup job's index: which granules hold rows received since a time (rows are written in time order, so a
 * granule's receive times lie close together). Lets the job and the reads' unrolled tail skip the rolled samples.
 */
export const RECEIVED_INDEX = 'received_at_minmax';
const receivedIndex = `${RECEIVED_INDEX} received_at TYPE minmax GRANULARITY 1`;
export const receivedIndexDdl = (table: string): string => `ALTER TABLE ${table} ADD INDEX IF NOT EXISTS ${receivedIndex}`;

/** `withRollups` false: a benchmark's bare table, without the rollup job's index. */
export const telemetryTableDdl = (table: string = TELEMETRY_TABLE, withRollups = true): string => `
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
  retention_days UInt16 DEFAULT 0${
    withRollups
      ? `,
  INDEX ${receivedIndex}`
      : ''
  }
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, device_id, variable, ts)
TTL ${TELEMETRY_TTL}
SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/**
 * The 5-minute and hourly rollups (ClickHouse's time-series guidance): AggregatingMergeTree tables fed by the
 * rollup job (rollup-job.ts) off the insert path, holding the states of avg, sum, min, max, count, first and last, so
 * that day charts and statistic cycles read a few rows per bucket instead of every sample. Buckets are UTC;
 * a query in a time zone folds them into its own buckets (every real offset is a multiple of 5 minutes).
 */
export const rollups = [
  { suffix: '5m', start: 'toStartOfFiveMinutes(ts)', startOf: 'toStartOfFiveMinutes', stepMs: 5 * 60_000 },
  { suffix: '1h', start: 'toStartOfHour(ts)', startOf: 'toStartOfHour', stepMs: 60 * 60_000 },
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
 * What the rollup job (and the one-time backfill of rows stored before the rollup existed) inserts: the samples
 * that `where` picks, folded into the rollup's buckets. States add up, so folding a bucket's samples in several
 * runs (a late sample, a bucket still open) gives the bucket's figures, never twice the same sample.
 */
export const rollupSelect = (table: string, rollup: Rollup, where = 'true'): string => `
SELECT tenant_id, device_id, variable, ${rollup.start} AS bucket,
       avgState(v) AS avg_s, sum(v) AS sum_s, min(v) AS min_s, max(v) AS max_s, count() AS cnt_s,
       argMinState(v, ts) AS first_s, argMaxState(v, ts) AS last_s, max(keep) AS retention_days
FROM (SELECT tenant_id, device_id, variable, ts, assumeNotNull(value) AS v, if(retention_days = 0, toUInt16(${KEEP_DAYS}), retention_days) AS keep
      FROM ${table} WHERE value IS NOT NULL AND (${where}))
GROUP BY tenant_id, device_id, variable, bucket`;

/**
 * One rollup run's samples read once, in one statement (issue 23): the rollup job inserts the samples received in its
 * window, folded into the finest rollup's buckets (one scan of the raw rows' value columns), into this table, which
 * keeps nothing (Null engine); a materialized view per rollup (`rollupFoldDdl`) inserts them into the rollup, the
 * coarser one folded from their states. Before, a run emptied a staging table, filled it and inserted each rollup
 * from it: four statements, each waiting its turn on chDB with the inserts. The run's deduplication token reaches
 * the views' inserts (`deduplicate_blocks_in_dependent_materialized_views`, on by default), so a run that failed
 * after one rollup's insert is repeated with that one dropped. (One scan for the per-second counts too, by GROUPING
 * SETS, measured slower than this plus the counts' own scan of three narrow columns.)
 */
export const rollupFeedDdl = (table: string): string => `
CREATE TABLE IF NOT EXISTS ${table}_rollup_feed
(
  tenant_id LowCardinality(String),
  device_id String,
  variable  LowCardinality(String),
  bucket    DateTime('UTC'),
  avg_s     AggregateFunction(avg, Float64),
  sum_s     Float64,
  min_s     Float64,
  max_s     Float64,
  cnt_s     UInt64,
  first_s   AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  last_s    AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  retention_days UInt16
)
ENGINE = Null`;

/** The view that inserts a run's rows into a rollup: the finest rollup's as they are, a coarser one's folded from them. */
export const rollupFoldDdl = (table: string, rollup: Rollup): string => `
CREATE MATERIALIZED VIEW IF NOT EXISTS ${table}_${rollup.suffix}_fold TO ${table}_${rollup.suffix} AS
${
  rollup === rollups[0]
    ? `SELECT * FROM ${table}_rollup_feed`
    : `SELECT tenant_id, device_id, variable, ${rollup.startOf}(fine) AS bucket, avgMergeState(avg_fine) AS avg_s, sum(sum_fine) AS sum_s,
       min(min_fine) AS min_s, max(max_fine) AS max_s, sum(cnt_fine) AS cnt_s, argMinMergeState(first_fine) AS first_s,
       argMaxMergeState(last_fine) AS last_s, max(keep_fine) AS retention_days
FROM (SELECT tenant_id, device_id, variable, bucket AS fine, avg_s AS avg_fine, sum_s AS sum_fine, min_s AS min_fine, max_s AS max_fine,
             cnt_s AS cnt_fine, first_s AS first_fine, last_s AS last_fine, retention_days AS keep_fine
      FROM ${table}_rollup_feed)
GROUP BY tenant_id, device_id, variable, bucket`
}`;

/**
 * The rollup job's watermark: every sample received before the newest `wm` is in the rollups, none after it. A run
 * rolls the interval recorded (`wm` its start, `next` its end), then records `next` as the new `wm` and, in the same
 * row, what is due by then as the next run's `next`; one without an interval due records its own first. A run cut
 * short is found at start by `next > wm` and repeated with the same deduplication tokens.
 */
export const rollupWatermarkDdl = (table: string): string => `
CREATE TABLE IF NOT EXISTS ${table}_rolled
(
  wm   DateTime64(3, 'UTC'),
  next DateTime64(3, 'UTC'),
  at   DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(next)
ORDER BY tuple()`;
/** The watermark as a scalar in a query (the epoch before the first run). */
export const watermarkOf = (table: string): string => `(SELECT max(wm) FROM ${table}_rolled)`;

/**
 * A rollup's rows for the buckets that start in [from, to) (SQL DateTime expressions) whose samples
 * `filter` picks (on tenant_id, device_id, variable): the rolled rows, and the samples received since the watermark
 * folded the same way, so that a read answers as if every sample were rolled. Columns: device_id, variable, bucket,
 * avg_s, sum_s, min_s, max_s, cnt_s, first_s, last_s.
 */
export const rolledRows = (table: string, rollup: Rollup, filter: string, from: string, to: string): string => `
SELECT device_id, variable, bucket, avg_s, toFloat64(sum_s) AS sum_s, toFloat64(min_s) AS min_s, toFloat64(max_s) AS max_s,
       toUInt64(cnt_s) AS cnt_s, first_s, last_s
FROM ${table}_${rollup.suffix}
WHERE ${filter} AND bucket >= ${from} AND bucket < ${to}
UNION ALL
SELECT device_id, variable, toDateTime(${rollup.start}, 'UTC') AS bucket, avgState(v) AS avg_s, sum(v) AS sum_s, min(v) AS min_s,
       max(v) AS max_s, count() AS cnt_s, argMinState(v, ts) AS first_s, argMaxState(v, ts) AS last_s
FROM (SELECT device_id, variable, ts, assumeNotNull(value) AS v FROM ${table}
      WHERE ${filter} AND value IS NOT NULL AND ${rollup.start} >= ${from} AND ${rollup.start} < ${to}
        AND received_at >= ${watermarkOf(table)})
GROUP BY device_id, variable, bucket`;

/**
 * Samples stored per tenant and second (the home dashboard's "today's data points" and ingest rate): the rollup job
 * counts the rows it rolls (SummingMergeTree, so counts of one second from several runs add up), so that a day's count reads at most 86,400 rows instead of every sample. Kept 3 days
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
