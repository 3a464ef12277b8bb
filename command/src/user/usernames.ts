import { DomainError, type ErrorCode } from '@iot/contracts';
import type { ContactsOf, Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claim, claimExisting, releaseClaim } from '../shared/claims.ts';

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
export async function returnUnusedClaims(db: Sql, lookups: Lookups, owner: string): Promise<void> {
  const user = await lookups.userById(owner);
  const kept = user ? [user.username, user.email].filter((k): k is string => !!k).map((k) => k.toLowerCase()) : [];
  await db.query('delete from username_claims where owner = $1 and not (username = any($2::text[]))', [owner, kept]);
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

/** Users and pending registrations as claim owners (a registration under its pending credential, tenant/handlers.ts), oldest first. */
async function contactsOldestFirst(lookups: Lookups): Promise<ContactsOf[]> {
  const registrations = (await lookups.pendingRegistrations()).map((r) => ({ ...r, id: `registration:${r.id}` }));
  return [...(await lookups.userContacts()), ...registrations].sort((a, b) => a.since.getTime() - b.since.getTime());
}

/** Each key once, for its earliest holder. */
function earliestHolders(contacts: ContactsOf[], keyOf: (c: ContactsOf) => string | null): Map<string, string> {
  const holders = new Map<string, string>();
  for (const contact of contacts) {
    const key = keyOf(contact);
    if (key !== null && !holders.has(key)) holders.set(key, contact.id);
  }
  return holders;
}

/** Usernames of users made before usernames were claimed are claimed by their users. */
export async function claimExistingUsernames(db: Sql, lookups: Lookups): Promise<void> {
  const users = await lookups.userContacts();
  await db.query('insert into username_claims (username, owner) select * from unnest($1::text[], $2::text[]) on conflict do nothing', [
    users.map((u) => u.username.toLowerCase()),
    users.map((u) => u.id),
  ]);
}

/** Emails of users and pending registrations made before emails were claimed: the earliest keeps a duplicate. */
export async function claimExistingEmails(db: Sql, lookups: Lookups): Promise<void> {
  const holders = earliestHolders(await contactsOldestFirst(lookups), (c) => c.email?.toLowerCase() ?? null);
  await db.query(
    'insert into username_claims (username, owner) select * from unnest($1::text[], $2::text[]) on conflict (username) do nothing',
    [[...holders.keys()], [...holders.values()]],
  );
}

/** Phones of users and pending registrations made before phones were claimed: the earliest keeps a duplicate. */
export async function claimExistingPhones(db: Sql, lookups: Lookups): Promise<void> {
  const holders = earliestHolders(await contactsOldestFirst(lookups), (c) => (c.phone ? phoneKey(c.phone) : null));
  await claimExisting(
    db,
    [...holders].map(([key, owner]) => ({ scope: phoneScope, key, owner })),
  );
}

/** A registration's name, email and phone become its administrator's on approval. */
export async function transferUsernames(db: Sql, from: string, to: string): Promise<void> {
  await db.query('update username_claims set owner = $2 where owner = $1', [from, to]);
  await db.query('update claims set owner = $3 where scope = $1 and owner = $2', [phoneScope, from, to]);
}
