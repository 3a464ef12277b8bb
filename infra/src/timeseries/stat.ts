import type { StatComputation, StatCycle } from '@iot/contracts/ports/timeseries.ts';
import { rolledRows, rollups, type Rollup } from './schema.ts';

/**
 * Statistic results live in ClickHouse beside the samples they are folded from: a run is one
 * `INSERT … SELECT` that never brings a sample into Node, and a run again over the same windows (late samples)
 * replaces its rows (ReplacingMergeTree by computed_at, read with FINAL).
 */
export const STAT_RESULTS_TABLE = 'stat_results';
export const statResultsDdl = (table: string = STAT_RESULTS_TABLE): string => `
CREATE TABLE IF NOT EXISTS ${table}
(
  tenant_id    LowCardinality(String),
  task_id      String,
  window_start DateTime('UTC'),
  key          String,
  value        Nullable(Float64),
  samples      UInt64,
  computed_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
PARTITION BY toYYYYMM(window_start)
ORDER BY (tenant_id, task_id, window_start, key)`;

// Closed sets mapped to SQL fragments: every value is a {name:Type} parameter.
/** The start of the window of `x` in the task's zone (a week starts on Monday), as a DateTime in that zone. */
const windowOf: Record<StatCycle, (x: string) => string> = {
  '10m': (x) => `toStartOfInterval(${x}, INTERVAL 10 MINUTE, {tz:String})`,
  '30m': (x) => `toStartOfInterval(${x}, INTERVAL 30 MINUTE, {tz:String})`,
  '1h': (x) => `toStartOfInterval(${x}, INTERVAL 1 HOUR, {tz:String})`,
  '12h': (x) => `toStartOfInterval(${x}, INTERVAL 12 HOUR, {tz:String})`,
  '1d': (x) => `toStartOfDay(${x}, {tz:String})`,
  '1w': (x) => `toDateTime(toMonday(${x}, {tz:String}), {tz:String})`,
  '1M': (x) => `toDateTime(toStartOfMonth(${x}, {tz:String}), {tz:String})`,
};
const cycleInterval: Record<StatCycle, string> = {
  '10m': 'INTERVAL 10 MINUTE',
  '30m': 'INTERVAL 30 MINUTE',
  '1h': 'INTERVAL 1 HOUR',
  '12h': 'INTERVAL 12 HOUR',
  '1d': 'INTERVAL 1 DAY',
  '1w': 'INTERVAL 1 WEEK',
  '1M': 'INTERVAL 1 MONTH',
};
const cycleMinutes: Record<StatCycle, number> = { '10m': 10, '30m': 30, '1h': 60, '12h': 720, '1d': 1440, '1w': 10080, '1M': 40320 };

type StatType = StatComputation['statType'];
/**
 * Per statistic type: what one device's samples of one window fold to (from the raw samples, or from a rollup's
 * states: null when the rollup cannot answer it), and how a key's devices fold together. `history` is the
 * value in effect at the window's end; `diff` of a group is the sum of its devices' differences (meters).
 */
const statOf: Record<StatType, { raw: string; rollup: string | null; key: string }> = {
  history: { raw: 'argMaxState(v, ts)', rollup: 'argMaxMergeState(last_s)', key: 'argMaxMerge(d)' },
  end: { raw: 'argMaxState(v, ts)', rollup: 'argMaxMergeState(last_s)', key: 'argMaxMerge(d)' },
  start: { raw: 'argMinState(v, ts)', rollup: 'argMinMergeState(first_s)', key: 'argMinMerge(d)' },
  avg: { raw: 'avgState(v)', rollup: 'avgMergeState(avg_s)', key: 'avgMerge(d)' },
  sum: { raw: 'sum(v)', rollup: 'sum(sum_s)', key: 'sum(d)' },
  max: { raw: 'max(v)', rollup: 'max(max_s)', key: 'max(d)' },
  min: { raw: 'min(v)', rollup: 'min(min_s)', key: 'min(d)' },
  count: { raw: 'count()', rollup: 'sum(cnt_s)', key: 'sum(d)' },
  diff: { raw: 'argMax(v, ts) - argMin(v, ts)', rollup: 'argMaxMerge(last_s) - argMinMerge(first_s)', key: 'sum(d)' },
  distinctCount: { raw: 'uniqExactState(v)', rollup: null, key: 'uniqExactMerge(d)' },
};

/**
 * The rollup a computation reads, or null for the raw samples: the rollup must keep the statistic, no
 * exclusion may need the samples themselves, and the zone's offset must be whole steps of the rollup so that
 * every rollup bucket lies in one window (the hourly one: whole hours; every real offset is whole 5 minutes).
 */
export function statRollupFor(c: Pick<StatComputation, 'statType' | 'exclusion' | 'cycle'>, offsetMinutes: number[]): Rollup | null {
  if (statOf[c.statType].rollup === null || c.exclusion.mode !== 'none') return null;
  for (const rollup of [...rollups].reverse()) {
    const step = rollup.stepMs / 60_000;
    if (cycleMinutes[c.cycle] % step === 0 && offsetMinutes.every((m) => m % step === 0)) return rollup;
  }
  return null;
}

/**
 * The `INSERT … SELECT` of one computation: windows of the cycle in the zone that meet [from, to), per device
 * then per key. Parameters: tenantId, variable, fromMs, toMs, tz, and keys / deviceIds / sigma / lo / hi as the
 * computation needs.
 */
export function statInsertSql(c: StatComputation, source: { table: string; rollup: Rollup | null }, results: string): string {
  const w = windowOf[c.cycle];
  const stat = statOf[c.statType];
  const from = "fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')";
  const to = "fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')";
  // Whole windows: from the start of the window holding `from` to the end of the one holding the last instant before `to`.
  const lo = `toDateTime(${w(from)}, 'UTC')`;
  const hi = `toDateTime(${w(`(${to} - INTERVAL 1 MILLISECOND)`)} + ${cycleInterval[c.cycle]}, 'UTC')`;
  const devices =
    c.keys.kind === 'map'
      ? 'AND mapContains({keyOf:Map(String, String)}, device_id)'
      : c.keys.kind === 'device' && c.keys.deviceIds
        ? 'AND device_id IN {deviceIds:Array(String)}'
        : '';
  const key = c.keys.kind === 'map' ? '{keyOf:Map(String, String)}[device_id]' : '{tenantId:String}';
  const rows = source.rollup
    ? `FROM (${rolledRows(source.table, source.rollup, `tenant_id = {tenantId:String} AND variable = {variable:String} ${devices}`, lo, hi)})`
    : `FROM (${samples(c, source.table, lo, hi, devices)})`;
  const window = source.rollup ? `toUnixTimestamp(${w('bucket')}) AS w` : 'w';
  const count = source.rollup ? 'sum(cnt_s)' : 'count()';
  const fold = source.rollup ? stat.rollup! : stat.raw;
  const insert = `INSERT INTO ${results} (tenant_id, task_id, window_start, key, value, samples, computed_at)`;
  // Each device its own key: one fold per device and window, the state's final value taken at once (avgState → avg).
  if (c.keys.kind === 'device')
    return `${insert}
SELECT {tenantId:String}, {taskId:String}, toDateTime(w, 'UTC'), device_id, toFloat64(d), n, now64(3, 'UTC')
FROM (SELECT device_id, ${window}, ${fold.replace('State(', '(')} AS d, ${count} AS n ${rows} GROUP BY device_id, w)`;
  return `${insert}
SELECT {tenantId:String}, {taskId:String}, toDateTime(w, 'UTC'), k, toFloat64(${stat.key}), sum(n), now64(3, 'UTC')
FROM (SELECT ${key} AS k, w, d, n FROM (SELECT device_id, ${window}, ${fold} AS d, ${count} AS n ${rows} GROUP BY device_id, w))
GROUP BY k, w`;
}

/** The samples of the windows after exclusion: outside [lo, hi] of the thing model, or beyond sigma standard deviations of their device's window. */
function samples(c: StatComputation, table: string, lo: string, hi: string, devices: string): string {
  const w = windowOf[c.cycle];
  const base = `SELECT device_id, ts, assumeNotNull(value) AS v, toUnixTimestamp(${w('ts')}) AS w
    FROM ${table}
    WHERE tenant_id = {tenantId:String} AND variable = {variable:String} AND value IS NOT NULL AND ts >= ${lo} AND ts < ${hi} ${devices}`;
  switch (c.exclusion.mode) {
    case 'none':
      return base;
    case 'range':
      return `${base} AND value BETWEEN {min:Float64} AND {max:Float64}`;
    case 'stdDev':
      return `SELECT device_id, ts, v, w FROM (
        SELECT device_id, ts, v, w, avg(v) OVER (PARTITION BY device_id, w) AS mean, stddevPop(v) OVER (PARTITION BY device_id, w) AS sd
        FROM (${base}))
      WHERE abs(v - mean) <= {sigma:Float64} * sd`;
  }
}

/** The parameters of `statInsertSql`. */
export function statParams(c: StatComputation): Record<string, unknown> {
  return {
    tenantId: c.tenantId,
    taskId: c.taskId,
    variable: c.variable,
    fromMs: c.from.getTime(),
    toMs: c.to.getTime(),
    tz: c.timeZone,
    ...(c.keys.kind === 'map' ? { keyOf: c.keys.keyOf } : {}),
    ...(c.keys.kind === 'device' && c.keys.deviceIds ? { deviceIds: c.keys.deviceIds } : {}),
    ...(c.exclusion.mode === 'range' ? { min: c.exclusion.min, max: c.exclusion.max } : {}),
    ...(c.exclusion.mode === 'stdDev' ? { sigma: c.exclusion.sigma } : {}),
  };
}
