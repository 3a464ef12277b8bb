import { DomainError } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** Failed logins, per account and per address, kept outside the event log (they are not domain facts). */
export const throttleSchema = `
create table if not exists auth_login_failures (
  key text not null,
  at timestamptz not null default now()
);
create index if not exists auth_login_failures_key on auth_login_failures (key, at);`;

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

/** Refuses with RATE_LIMITED when the account or the address failed too often within the window. */
export async function assertNotThrottled(db: Sql, account: string, ip: string | undefined): Promise<void> {
  const k = keys(account, ip);
  const counts = await db.query<{ key: string; n: number }>(
    `select key, count(*)::int as n from auth_login_failures where key = any($1) and at > now() - make_interval(mins => $2) group by key`,
    [[k.account, k.address], THROTTLE.windowMinutes],
  );
  for (const row of counts.rows) {
    const limit = row.key === k.account ? THROTTLE.perAccount : THROTTLE.perAddress;
    if (row.n >= limit) throw new DomainError('RATE_LIMITED', { retryAfterMinutes: THROTTLE.windowMinutes });
  }
}

export async function recordLoginFailure(db: Sql, account: string, ip: string | undefined): Promise<void> {
  const k = keys(account, ip);
  await db.query(`insert into auth_login_failures (key) values ($1), ($2)`, [k.account, k.address]);
  await db.query(`delete from auth_login_failures where at < now() - make_interval(mins => $1)`, [THROTTLE.windowMinutes * 2]);
}

/** A successful login clears its account's failures (not the address's). */
export async function clearLoginFailures(db: Sql, account: string): Promise<void> {
  await db.query('delete from auth_login_failures where key = $1', [keys(account, undefined).account]);
}
