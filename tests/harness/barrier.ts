import type { SqlPool } from '@iot/infra/postgres/sql.ts';
import { waitFor } from './process.ts';

/** What a barrier of the test's own gives: when the requests under test wait for it, and letting them go. */
export interface Barrier {
  /** How many sessions wait for the barrier's transaction now, directly or behind one that does. */
  waiting(): Promise<number>;
  /** Resolves once `n` sessions wait for it: the requests under test are held where they write. */
  queued(n: number): Promise<void>;
  /** Rolls the barrier's transaction back: the held requests go on together. */
  release(): Promise<void>;
}

class Released extends Error {}

/**
 * A barrier that forces a race's interleaving (STYLE.md "Tests say what they check"): `statement` runs in a
 * transaction of the test's own that stays open, so every request that needs what it took waits for it.
 */
export async function hold(db: SqlPool, statement: string, params: unknown[] = []): Promise<Barrier> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let took!: (pid: number) => void;
  const taken = new Promise<number>((resolve) => (took = resolve));
  const held = db
    .transaction(async (tx) => {
      await tx.query(statement, params);
      took((await tx.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
      await released;
      throw new Released();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Released)) throw error;
    });
  const pid = await Promise.race([taken, held.then(() => Promise.reject(new Error('the barrier ended before it held')))]);
  // Directly, or behind another request that waits for it (a row's second waiter queues behind the first).
  const waiting = async () =>
    (
      await db.query<{ n: number }>(
        `with recursive held(pid) as (
           select pid from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))
           union
           select a.pid from pg_stat_activity a join held h on h.pid = any(pg_blocking_pids(a.pid))
         )
         select count(*)::int as n from held`,
        [pid],
      )
    ).rows[0]!.n;
  return {
    waiting,
    queued: (n) => waitFor(`${n} requests held at the barrier`, async () => (await waiting()) >= n, 20_000, 10).then(() => undefined),
    async release() {
      release();
      await held;
    },
  };
}

/** Holds `table` in EXCLUSIVE mode: every request that writes it stops there (reads go on), e.g. every append. */
export const holdTable = (db: SqlPool, table: string): Promise<Barrier> => hold(db, `lock table ${table} in exclusive mode`);

/**
 * Holds one unique key: an uncommitted row of the test's own under it makes every request that inserts that key
 * wait (PostgreSQL waits for the transaction that inserted a key before it decides a conflict); once released,
 * the key is free and the held requests claim it together.
 */
export const holdKey = (db: SqlPool, table: string, row: Record<string, string>): Promise<Barrier> =>
  hold(
    db,
    `insert into ${table} (${Object.keys(row).join(', ')}) values (${Object.keys(row)
      .map((_, i) => `$${i + 1}`)
      .join(', ')})`,
    Object.values(row),
  );

/**
 * Starts every request, waits until each is held at `barrier`, and lets them go together: the requests have all
 * passed every check before any of them writes what the barrier holds. Gives their answers in order.
 */
export async function together<const R extends ReadonlyArray<() => Promise<unknown>>>(
  barrier: Promise<Barrier>,
  requests: R,
): Promise<{ -readonly [K in keyof R]: Awaited<ReturnType<R[K]>> }> {
  const gate = await barrier;
  const answers = Promise.all(requests.map((request) => request())) as Promise<{ -readonly [K in keyof R]: Awaited<ReturnType<R[K]>> }>;
  try {
    await gate.queued(requests.length);
  } catch (error) {
    await gate.release();
    throw new Error(`${(error as Error).message}; the requests answered ${JSON.stringify(await answers)}`, { cause: error });
  }
  await gate.release();
  return answers;
}
