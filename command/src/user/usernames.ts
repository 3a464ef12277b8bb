import { DomainError, type ErrorCode } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claim, releaseClaim } from '../shared/claims.ts';

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

/**
 * Logins name no tenant and take an account or an email, so emails are claimed in the same table,
 * platform-wide: a username has no '@' and an email always has one, so neither can shadow the other.
 */
export async function claimEmail(db: Sql, email: string | null, owner: string): Promise<void> {
  if (email) await claimUsername(db, email, owner, 'EMAIL_TAKEN');
}

/** Gives back what `owner` claimed beyond the username and email its user has now: an edit that was refused. */
export async function returnUnusedClaims(db: Sql, owner: string): Promise<void> {
  await db.query(
    `delete from username_claims c where owner = $1
     and not exists (select 1 from rm_users u where u.id = $1 and (lower(u.username) = c.username or lower(u.email) = c.username))`,
    [owner],
  );
}

/**
 * Phones are unique platform-wide too, but no login takes one, so they are claimed apart from usernames
 * (a username may be all digits), in the claims table under this scope.
 */
export const phoneScope = 'user.phone';

/**
 * The key a phone is claimed under: without spaces or dashes and without a mainland +86 or 86 prefix, so
 * that two spellings of one number are one key. `phoneKeySql` is the same for rows already stored.
 */
export const phoneKey = (phone: string): string => phone.replace(/[\s-]/g, '').replace(/^\+?86(1\d{10})$/, '$1');
const phoneKeySql = (column: string) => `regexp_replace(regexp_replace(${column}, '[\\s-]', '', 'g'), '^\\+?86(1\\d{10})$', '\\1')`;

/** Claims a phone for `owner`: true when this call took it (so a refused change gives it back), false when already theirs or none. */
export async function claimPhone(db: Sql, phone: string | null, owner: string): Promise<boolean> {
  return phone ? claim(db, phoneScope, phoneKey(phone), owner, 'PHONE_TAKEN') : false;
}

/** Gives back a phone this request took for `owner` when the change that needed it was refused. */
export async function returnPhone(db: Sql, phone: string | null, owner: string, took: boolean): Promise<void> {
  if (took && phone) await releaseClaim(db, phoneScope, phoneKey(phone), owner);
}

/**
 * Frees every username and email of `owner` but those in `keep`, and every phone but `keepPhone`
 * (after an edit, a delete or a rejected registration).
 */
export async function releaseUsernames(
  db: Sql,
  owner: string,
  keep: Array<string | null> = [],
  keepPhone: string | null = null,
): Promise<void> {
  const kept = keep.filter((k): k is string => !!k).map((k) => k.toLowerCase());
  await db.query('delete from username_claims where owner = $1 and not (username = any($2::text[]))', [owner, kept]);
  await db.query('delete from claims where scope = $1 and owner = $2 and key is distinct from $3', [
    phoneScope,
    owner,
    keepPhone ? phoneKey(keepPhone) : null,
  ]);
}

/** Emails of users and pending registrations made before emails were claimed: the earliest keeps a duplicate. */
export async function claimExistingEmails(db: Sql): Promise<void> {
  await db.query(
    `insert into username_claims (username, owner)
     select distinct on (lower(email)) lower(email), owner from (
       select email, id as owner, created_at from rm_users where email is not null
       union all select email, 'registration:' || id, apply_time from rm_tenants where status = 'underReview' and email is not null
     ) e order by lower(email), created_at
     on conflict (username) do nothing`,
  );
}

/** Phones of users and pending registrations made before phones were claimed: the earliest keeps a duplicate. */
export async function claimExistingPhones(db: Sql): Promise<void> {
  await db.query(
    `insert into claims (scope, key, owner)
     select distinct on (key) $1, key, owner from (
       select ${phoneKeySql('phone')} as key, id as owner, created_at from rm_users where phone is not null
       union all select ${phoneKeySql('phone')}, 'registration:' || id, apply_time from rm_tenants where status = 'underReview' and phone is not null
     ) p order by key, created_at
     on conflict (scope, key) do nothing`,
    [phoneScope],
  );
}

/** A registration's name, email and phone become its administrator's on approval. */
export async function transferUsernames(db: Sql, from: string, to: string): Promise<void> {
  await db.query('update username_claims set owner = $2 where owner = $1', [from, to]);
  await db.query('update claims set owner = $3 where scope = $1 and owner = $2', [phoneScope, from, to]);
}
