import { backfillProgress, type StatBackfillFeed } from '@iot/contracts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pendingStatBackfills, statTaskById, type StatTaskRecord } from './read.ts';
import type { StatScheduler } from './scheduler.ts';

/**
 * How far each backfill got (worker-owned, not a read model: a rebuild of the tasks' read model never restarts a
 * backfill): computed up to `done_until`, `finished` when it ended (done, cancelled, failed), leased by one worker at a
 * time so that several processes share the work without computing a chunk twice at once.
 */
export const statBackfillsSchema = `
create table stat_backfills (
  backfill_id text primary key,
  done_until timestamptz not null,
  finished text,
  error text,
  failures int not null default 0,
  leased_until timestamptz,
  progressed_at timestamptz not null default now()
);`;

const DAY_MS = 86_400_000;
/** One chunk of a backfill: a day of windows (a week or a month for those cycles, so one chunk holds a whole window). */
const chunkMs = (cycle: StatTaskRecord['cycle']) => (cycle === '1M' ? 31 * DAY_MS : cycle === '1w' ? 7 * DAY_MS : DAY_MS);
/** A chunk that fails this many times in a row ends its backfill as failed. */
const MAX_FAILURES = 3;

const CHANNEL = 'stat.backfill';

/**
 * Works the pending backfills chunk by chunk (each chunk one run of the task, as the scheduler runs it), oldest asked
 * first; a cancel is seen between two chunks, and the windows computed so far stay. `step` works for about `budgetMs`
 * and answers how many chunks it computed. Each chunk and each end goes out on the `stat.backfill` channel.
 */
export function createStatBackfiller(deps: {
  db: Sql;
  scheduler: Pick<StatScheduler, 'runTask'>;
  live?: LiveFeed;
  onError?: (task: StatTaskRecord, error: unknown) => void;
}) {
  const { db } = deps;
  /** Where a backfill stands, to the task screens that listen. */
  function publish(task: StatTaskRecord, status: StatBackfillFeed['status'], doneUntil: Date) {
    const { live } = deps;
    const backfill = task.backfill!;
    if (!live?.listening(CHANNEL)) return;
    live.publish(CHANNEL, { tenantId: task.tenantId }, {
      taskId: task.id,
      from: backfill.from.toISOString(),
      to: backfill.to.toISOString(),
      status,
      progress: backfillProgress(backfill.from, backfill.to, doneUntil),
    } satisfies StatBackfillFeed);
  }
  async function lease(backfillId: string, from: Date): Promise<Date | null> {
    await db.query('insert into stat_backfills (backfill_id, done_until) values ($1, $2) on conflict do nothing', [backfillId, from]);
    const rows = await db.query<{ doneUntil: Date }>(
      `update stat_backfills set leased_until = now() + interval '2 minutes'
       where backfill_id = $1 and finished is null and (leased_until is null or leased_until < now())
       returning done_until as "doneUntil"`,
      [backfillId],
    );
    return rows.rows[0]?.doneUntil ?? null;
  }
  const end = (backfillId: string, finished: 'done' | 'cancelled' | 'failed', doneUntil?: Date) =>
    db.query(
      `update stat_backfills set finished = $2, done_until = coalesce($3, done_until), leased_until = null, progressed_at = now() where backfill_id = $1`,
      [backfillId, finished, doneUntil ?? null],
    );

  /** Works one backfill until it ends, is cancelled, or the deadline passes. */
  async function work(task: StatTaskRecord, deadline: number): Promise<number> {
    const backfill = task.backfill!;
    const leased = await lease(backfill.id, backfill.from);
    if (!leased) return 0;
    let doneUntil: Date = leased;
    let chunks = 0;
    try {
      while (doneUntil.getTime() < backfill.to.getTime() && Date.now() < deadline) {
        const now = await statTaskById(db, task.tenantId, task.id);
        if (!now || now.backfill?.id !== backfill.id || now.backfill.cancelled) {
          await end(backfill.id, 'cancelled');
          publish(task, 'cancelled', doneUntil);
          return chunks;
        }
        const next = new Date(Math.min(doneUntil.getTime() + chunkMs(task.cycle), backfill.to.getTime()));
        try {
          await deps.scheduler.runTask(now, doneUntil, next);
        } catch (error) {
          deps.onError?.(task, error);
          const failures = await db.query<{ failures: number }>(
            `update stat_backfills set failures = failures + 1, error = $2, leased_until = null, progressed_at = now()
             where backfill_id = $1 returning failures`,
            [backfill.id, (error instanceof Error ? error.message : String(error)).slice(0, 500)],
          );
          if ((failures.rows[0]?.failures ?? 0) >= MAX_FAILURES) {
            await end(backfill.id, 'failed');
            publish(task, 'failed', doneUntil);
          }
          return chunks;
        }
        doneUntil = next;
        chunks++;
        await db.query('update stat_backfills set done_until = $2, failures = 0, progressed_at = now() where backfill_id = $1', [
          backfill.id,
          doneUntil,
        ]);
        if (doneUntil.getTime() < backfill.to.getTime()) publish(task, 'running', doneUntil);
      }
      if (doneUntil.getTime() >= backfill.to.getTime()) {
        await end(backfill.id, 'done');
        publish(task, 'done', doneUntil);
      }
      return chunks;
    } finally {
      await db.query('update stat_backfills set leased_until = null where backfill_id = $1 and finished is null', [backfill.id]);
    }
  }

  return {
    async step(budgetMs = 2_000): Promise<number> {
      const deadline = Date.now() + budgetMs;
      let chunks = 0;
      for (const task of await pendingStatBackfills(db)) {
        if (Date.now() >= deadline) break;
        chunks += await work(task, deadline);
      }
      return chunks;
    },
  };
}
export type StatBackfiller = ReturnType<typeof createStatBackfiller>;
