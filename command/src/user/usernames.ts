import { DomainError, type ErrorCode } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * Usernames are unique across the platform (login is by account alone). A read model cannot promise that
 * under concurrent creates, so each name is claimed here, atomically, before the event that uses it is
 * appended. A registration claims its tenant name (the future admin's username) and hands it over on approval.
 */
export const usernameClaimsSchema = `
create table username_claims (
  username text primary key,
  owner text not null,
  claimed_at timestamptz not null default now()
);`;

/** Claims a username for `owner`; claiming one's own again is fine. */
export async function claimUsername(db: Sql, username: string, owner: string, taken: ErrorCode = 'USERNAME_TAKEN'): Promise<void> {
  const claimed = await db.query(
    `insert into username_claims (username, owner) values (lower($1), $2)
     on conflict (username) do update set owner = excluded.owner where username_claims.owner = excluded.owner`,
    [username, owner],
  );
  if (claimed.rowCount === 0) throw new DomainError(taken);
}

/** Frees every username of `owner` but `keep` (after a rename, a delete or a rejected registration). */
export async function releaseUsernames(db: Sql, owner: string, keep?: string): Promise<void> {
  await db.query('delete from username_claims where owner = $1 and username <> lower($2)', [owner, keep ?? '']);
}

export async function transferUsernames(db: Sql, from: string, to: string): Promise<void> {
  await db.query('update username_claims set owner = $2 where owner = $1', [from, to]);
}
