import { DomainError } from '@iot/contracts';
import type { Sql, SqlPool } from '@iot/contracts/ports/sql.ts';

/** Failed logins, per account and per address, kept outside the event log (they are not domain facts). */
export const throttleSchema = `
create table auth_login_failures (
  key text not null,
  at timestamptz not null default now()
);
create index auth_login_failures_key on auth_login_failures (key, at);`;

export const THROTTLE = {
  windowMinutes: 15,
  /** Failures of one account within the window before it is refused. */
  perAccount: 5,
  /** An address is shared by many people behind one NAT: it gets more room than an account. */
  perAddress: 20,
} as const;

const keys = (account: string, ip: string | undefined) => ({
  account: `account:${account.trim().toLowerCase()}`,
  address: `ip:${ip ?? 'unknown'}`,
});

/**
 * Counts an attempt before its password is checked, atomically: under a lock per account and per address,
 * it is refused (RATE_LIMITED) when either failed too often within the window, else recorded as a failure
 * that a success clears. So 50 concurrent guesses get the limit's worth of checks, not 50.
 */
export async function reserveLoginAttempt(db: SqlPool, account: string, ip: string | undefined): Promise<void> {
  const k = keys(account, ip);
  await db.transaction(async (tx) => {
    for (const key of [k.account, k.address].sort()) await tx.query('select pg_advisory_xact_lock(hashtext($1))', [key]);
    const counts = await tx.query<{ key: string; n: number }>(
      `select key, count(*)::int as n from auth_login_failures where key = any($1) and at > now() - make_interval(mins => $2) group by key`,
      [[k.account, k.address], THROTTLE.windowMinutes],
    );
    for (const row of counts.rows) {
      const limit = row.key === k.account ? THROTTLE.perAccount : THROTTLE.perAddress;
      if (row.n >= limit) throw new DomainError('RATE_LIMITED', { retryAfterMinutes: THROTTLE.windowMinutes });
    }
    await tx.query(`insert into auth_login_failures (key) values ($1), ($2)`, [k.account, k.address]);
  });
  // Kept a day: the longest window that reads them (verification codes per address).
  await db.query(`delete from auth_login_failures where at < now() - interval '1 day 1 hour'`);
}

/** A successful login takes back its attempt from the address and clears its account's failures. */
export async function clearLoginFailures(db: Sql, account: string, ip?: string): Promise<void> {
  const k = keys(account, ip);
  await db.query('delete from auth_login_failures where key = $1', [k.account]);
  if (ip)
    await db.query(
      'delete from auth_login_failures where ctid in (select ctid from auth_login_failures where key = $1 order by at desc limit 1)',
      [k.address],
    );
}

/** Verification codes per address to send to and per client (spec §5 countdown aside): each costs an SMS or a mail. */
export const CODE_LIMITS = { perTargetPerDay: 10, perClientPerHour: 20 } as const;

/**
 * Counts a request for a verification code, atomically like a login attempt (the same table of attempts):
 * refused with RATE_LIMITED beyond 10 a day to one phone or mailbox or 20 an hour from one client.
 */
export async function reserveCodeRequest(db: SqlPool, target: string, ip: string | undefined): Promise<void> {
  const toTarget = `code-to:${target.trim().toLowerCase()}`;
  const fromClient = `code-from:${ip ?? 'unknown'}`;
  await db.transaction(async (tx) => {
    for (const key of [toTarget, fromClient].sort()) await tx.query('select pg_advisory_xact_lock(hashtext($1))', [key]);
    const counts = (
      await tx.query<{ day: number; hour: number }>(
        `select count(*) filter (where key = $1 and at > now() - interval '1 day')::int as day,
                count(*) filter (where key = $2 and at > now() - interval '1 hour')::int as hour
         from auth_login_failures where key in ($1, $2)`,
        [toTarget, fromClient],
      )
    ).rows[0]!;
    if (counts.day >= CODE_LIMITS.perTargetPerDay || counts.hour >= CODE_LIMITS.perClientPerHour) throw new DomainError('RATE_LIMITED');
    await tx.query('insert into auth_login_failures (key) values ($1), ($2)', [toTarget, fromClient]);
  });
}
