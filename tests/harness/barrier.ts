import type { SqlPool } from '@iot/infra/postgres/sql.ts';
import { waitFor } from './process.ts';

/**
 * A barrier that forces a race's interleaving (STYLE.md "Tests say what they check"): a transaction of the test's
 * own holds `table` in EXCLUSIVE mode, so every request that writes it stops there (reads go on) until `release`.
 * `queued(n)` resolves once n other sessions wait for the lock: the requests under test are held at that write.
 */
export async function holdTable(db: SqlPool, table: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const held = db.transaction(async (tx) => {
    await tx.query(`lock table ${table} in exclusive mode`);
    locked();
    await released;
  });
  await Promise.race([isLocked, held]);
  const waiting = async () =>
    (
      await db.query<{ n: number }>(
        `select count(*)::int as n from pg_locks
          where not granted and relation = $1::text::regclass
            and database = (select oid from pg_database where datname = current_database())`,
        [table],
      )
    ).rows[0]!.n;
  return {
    /** How many sessions wait for the table now. */
    waiting,
    /** Resolves once `n` sessions wait for the table. */
    queued: (n: number) => waitFor(`${n} writers of ${table} held`, async () => (await waiting()) >= n, 20_000, 10),
    /** Lets the held writers go, and waits for the test's transaction to end. */
    async release() {
      release();
      await held;
    },
  };
}
