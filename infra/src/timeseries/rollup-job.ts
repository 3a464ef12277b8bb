import type { ClickHouseClient } from '@clickhouse/client';
import { rollups, rollupSelect, SAMPLE_COUNTS_DAYS, sampleCountsSelect } from './schema.ts';

/** How often the rollup job runs, and how long after its receipt a sample waits to be rolled. */
export interface RollupSchedule {
  /** Milliseconds between runs; 0: this process runs none (another process owns the job, or a test flushes). */
  everyMs: number;
  /** An insert still in flight on a ClickHouse server when a run reads: its rows are rolled by a later run. */
  graceMs: number;
  /**
   * The most receipt time one run folds (ms): a backlog (a slow run, a restart) is caught up in several short runs,
   * with inserts let in between them, instead of one long run that holds the engine. Default: twice `everyMs`.
   */
  windowMs?: number;
}
export const ROLLUP_SCHEDULE_DEFAULTS: RollupSchedule = { everyMs: 10_000, graceMs: 10_000 };
/** The window of a schedule without `everyMs` (tests, benchmarks that flush). */
const DEFAULT_WINDOW_MS = 20_000;
/** The pause between the windows of a backlog, for the inserts and reads waiting on the engine. */
const BETWEEN_WINDOWS_MS = 50;

/** One run: the samples received in [from, to), how long it took (ms). */
export interface RollupRun {
  from: Date;
  to: Date;
  ms: number;
}

/**
 * The rollups off the insert path (issue 23): an insert writes the raw table alone; this job, the one owner of the
 * rollups, folds the samples received since its watermark into the 5-minute, hourly and per-second tables, on the
 * store's connection, every `everyMs`. It goes by receipt time, not sample time: a sample is rolled once whatever
 * its time, so a late sample lands in its (already rolled) bucket by adding its states, never by refolding the
 * bucket, and the AggregatingMergeTree tables need no FINAL. Reads add the samples received since the watermark
 * (schema.ts `rolledRows`), and wait while a run is between its inserts and its new watermark.
 */
export class RollupJob {
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** Set while a run writes: reads wait for it; the run waits for the reads in flight. */
  private writing: Promise<void> | null = null;
  private readers = 0;
  private drained: (() => void) | null = null;
  private release: (() => void) | null = null;
  private stopped = false;
  /**
   * The watermark and next interval this process's last run wrote (epoch ms), while it owns the job (`everyMs` > 0): a scheduled run
   * starts from it instead of reading `_rolled`, whose many small parts cost a read every run (issue 23). A flush
   * (`upToNow`) and the first run read the table.
   */
  private watermark: { wm: number; next: number } | null = null;
  /** The last run that rolled something. */
  lastRun: RollupRun | null = null;
  /** Runs that rolled something since start: how many, their total and longest time (ms). */
  readonly runs = { count: 0, totalMs: 0, maxMs: 0 };
  /** Each statement of the runs since start, by what it does: how many, their total and longest time (ms). */
  readonly statements = new Map<string, { count: number; totalMs: number; maxMs: number }>();

  constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
    private readonly schedule: RollupSchedule,
    /**
     * The engine runs in this process (chDB): its `now64()`, which stamps `received_at`, is this process's clock, so a
     * run reads the time here instead of asking the engine (a statement that waits its turn behind the inserts).
     */
    private readonly sameClock = false,
    private readonly onError: (error: unknown) => void = (error) => console.error(`rollup job (${table}):`, error),
  ) {}

  /** Repeats a run cut short by a crash, then runs on schedule; nothing where another process owns the job (`everyMs` 0). */
  async start(): Promise<void> {
    if (this.schedule.everyMs <= 0) return;
    await this.run(false);
    if (this.stopped) return;
    this.timer = setInterval(() => {
      this.run(false).catch((error: unknown) => {
        if (!this.stopped) this.onError(error);
      });
    }, this.schedule.everyMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.queue;
  }

  /** A run after those queued; `upToNow` rolls everything received so far (tests, benchmarks), else up to the grace. */
  run(upToNow: boolean): Promise<void> {
    const next = this.queue.then(() => this.exclusive(() => this.once(upToNow)));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** A read of the rollups (with the samples since the watermark): never between a run's inserts and its watermark. */
  async reading<T>(read: () => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    this.readers++;
    try {
      return await read();
    } finally {
      if (--this.readers === 0) this.drained?.();
    }
  }

  private async exclusive(work: () => Promise<void>): Promise<void> {
    await this.exclusiveBegin();
    try {
      await work();
    } finally {
      this.exclusiveEnd();
    }
  }

  /** Holds the reads off (those in flight finish first). */
  private async exclusiveBegin(): Promise<void> {
    this.writing = new Promise((resolve) => (this.release = resolve));
    while (this.readers > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = null;
  }

  private exclusiveEnd(): void {
    this.writing = null;
    this.release?.();
    this.release = null;
  }

  /** Runs windows until the interval due is rolled, letting inserts in between them (a backlog: several short runs). */
  private async once(upToNow: boolean): Promise<void> {
    // A flush's end: fixed at its first window, so that it rolls what was received before it and stops.
    let flushDue: number | null = null;
    for (;;) {
      const { more, due } = await this.window(upToNow, flushDue);
      if (!more || this.stopped) return;
      if (upToNow) flushDue = due;
      this.exclusiveEnd();
      await new Promise((resolve) => setTimeout(resolve, BETWEEN_WINDOWS_MS));
      await this.exclusiveBegin();
      if (this.stopped) return;
    }
  }

  /**
   * One run: the samples received in one interval from the watermark. Their values are read once, into the finest
   * rollup's buckets, and fed to both rollups by one insert (schema.ts `rollupFeedDdl`); the counts read the same rows'
   * tenant and times. Its new watermark records the next run's interval in the same row (what was due when it ended):
   * a scheduled run rolls the interval its predecessor recorded, under tokens fixed before it starts, and writes one
   * row instead of two (issue 23). Only a run without one (the first, one after a flush, a quiet spell) records its
   * own first. `more`: more is due after it.
   */
  private async window(upToNow: boolean, flushDue: number | null): Promise<{ more: boolean; due: number }> {
    const began = performance.now();
    const known = upToNow ? null : this.watermark;
    // Forgotten until the run ends: a run that fails half way is repeated from `_rolled` (its interval, its tokens).
    this.watermark = null;
    const state = known === null ? await this.readWatermark() : await this.knownWatermark(known);
    const from = Number(state.wm);
    const cut = Number(state.next);
    const grace = upToNow ? 0 : this.schedule.graceMs;
    // The engine's time now, from its time at the start (its clock stamps `received_at`) without another statement.
    const engineNow = () => Number(state.now) + (performance.now() - began);
    const due = flushDue ?? Number(state.now) - grace;
    // An interval recorded (by the run before, or by a run cut short): that one, under the same tokens.
    const recorded = cut > from;
    const to = recorded ? cut : await this.windowEnd(from, due);
    if (to <= from) {
      if (this.schedule.everyMs > 0) this.watermark = { wm: from, next: from };
      return { more: false, due };
    }
    if (!recorded) await this.mark('interval', from, to);
    const received = `received_at >= fromUnixTimestamp64Milli(${from}, 'UTC') AND received_at < fromUnixTimestamp64Milli(${to}, 'UTC')`;
    const token = (target: string) => `SETTINGS insert_deduplicate = 1, insert_deduplication_token = 'rollup:${target}:${from}:${to}'`;
    const feed = `${this.table}_rollup_feed`;
    await this.command('rollups', `INSERT INTO ${feed} ${token(feed)} ${rollupSelect(this.table, rollups[0], received)}`);
    const counts = `${this.table}_counts`;
    await this.command(
      'counts',
      `INSERT INTO ${counts} ${token(counts)} ${sampleCountsSelect(this.table, `WHERE ${received} AND ts >= now() - toIntervalDay(${SAMPLE_COUNTS_DAYS})`)}`,
    );
    const endDue = flushDue ?? (upToNow ? due : Math.floor(engineNow()) - grace);
    const next = endDue > to ? Math.max(to, await this.windowEnd(to, endDue)) : to;
    await this.mark('new watermark', to, next);
    if (this.schedule.everyMs > 0) this.watermark = { wm: to, next };
    this.lastRun = { from: new Date(from), to: new Date(to), ms: performance.now() - began };
    tally(this.runs, this.lastRun.ms);
    // A flush rolls on to its end; a scheduled run on through a backlog (the interval it recorded ends short of due).
    return { more: upToNow ? next > to : next < endDue, due };
  }

  /**
   * The end of the window from `from`: `due` if that is within the window's length, else the window's length past
   * the first sample received since `from` (a gap without samples, after a stop, is skipped at once).
   */
  private async windowEnd(from: number, due: number): Promise<number> {
    const windowMs = this.schedule.windowMs ?? (this.schedule.everyMs > 0 ? 2 * this.schedule.everyMs : DEFAULT_WINDOW_MS);
    if (due - from <= windowMs) return due;
    const [first] = await this.select<{ at: string | number | null }>(
      'window end',
      `SELECT toUnixTimestamp64Milli(min(received_at)) AS at FROM ${this.table}
       WHERE received_at >= fromUnixTimestamp64Milli(${from}, 'UTC') AND received_at < fromUnixTimestamp64Milli(${due}, 'UTC')`,
    );
    const at = first?.at == null ? NaN : Number(first.at);
    // None received since `from` (min of no rows is the epoch): the watermark moves to `due`.
    if (!(at >= from)) return due;
    return Math.min(due, at + windowMs);
  }

  /** The newest watermark and interval in `_rolled`, and the engine's time. */
  private async readWatermark(): Promise<WatermarkState> {
    const [state] = await this.select<WatermarkState>(
      'watermark',
      `SELECT toUnixTimestamp64Milli(wm) AS wm, toUnixTimestamp64Milli(next) AS next, toUnixTimestamp64Milli(now64(3)) AS now
       FROM ${this.table}_rolled ORDER BY next DESC, wm DESC LIMIT 1`,
    );
    if (!state) throw new Error(`${this.table}_rolled has no watermark: migrate() makes it`);
    return state;
  }

  /** The watermark and interval this process wrote last, and the engine's time (its clock stamps `received_at`). */
  private async knownWatermark(known: { wm: number; next: number }): Promise<{ wm: number; next: number; now: string | number }> {
    if (this.sameClock) return { ...known, now: Date.now() };
    const [state] = await this.select<{ now: string | number }>('now', `SELECT toUnixTimestamp64Milli(now64(3)) AS now`);
    return { ...known, now: state!.now };
  }

  private async mark(what: string, wm: number, next: number): Promise<void> {
    await this.command(
      what,
      `INSERT INTO ${this.table}_rolled (wm, next) VALUES (fromUnixTimestamp64Milli(${wm}, 'UTC'), fromUnixTimestamp64Milli(${next}, 'UTC'))`,
    );
  }

  private command(what: string, query: string): Promise<void> {
    return this.timed(what, async () => void (await this.client.command({ query })));
  }

  private select<Row>(what: string, query: string): Promise<Row[]> {
    return this.timed(what, async () => (await this.client.query({ query, format: 'JSONEachRow' })).json<Row>());
  }

  /** Counts a statement's time under `what` (the benchmarks print them: which statement of a run costs what). */
  private async timed<T>(what: string, work: () => Promise<T>): Promise<T> {
    const began = performance.now();
    try {
      return await work();
    } finally {
      const stat = this.statements.get(what) ?? { count: 0, totalMs: 0, maxMs: 0 };
      tally(stat, performance.now() - began);
      this.statements.set(what, stat);
    }
  }
}

/** The newest watermark and interval in `_rolled`, and the engine's time, as ClickHouse answers them (epoch ms). */
type WatermarkState = { wm: string | number; next: string | number; now: string | number };

/** Adds one timing to a count, total and longest (the runs' and each statement's). */
function tally(stat: { count: number; totalMs: number; maxMs: number }, ms: number): void {
  stat.count++;
  stat.totalMs += ms;
  stat.maxMs = Math.max(stat.maxMs, ms);
}
