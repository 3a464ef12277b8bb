import { DomainError, type ErrorCode } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * Uniqueness that spans streams (a role name in a tenant, a dictionary code) is a claim (ARCHITECTURE.md
 * "Event store"): a row under a unique key, taken before the append and released when the append fails,
 * so that of two concurrent requests only one can win. A read model cannot promise that: it lags, and a
 * projection that refused an event would stop.
 */
export const claimsSchema = `
create table claims (
  scope text not null,
  key text not null,
  owner text not null,
  claimed_at timestamptz not null default now(),
  primary key (scope, key)
);
create index claims_owner on claims (scope, owner);`;

export interface Claim {
  scope: string;
  key: string;
  owner: string;
}

/**
 * Takes `key` in `scope` for `owner`: true when this call took it, false when the owner held it already;
 * refuses with `taken` when another owner holds it.
 */
export async function claim(db: Sql, scope: string, key: string, owner: string, taken: ErrorCode): Promise<boolean> {
  // The holder may release between the insert and the look-up: then the key is free and we try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.query('insert into claims (scope, key, owner) values ($1, $2, $3) on conflict (scope, key) do nothing', [
      scope,
      key,
      owner,
    ]);
    if (inserted.rowCount === 1) return true;
    const holder = (await db.query<{ owner: string }>('select owner from claims where scope = $1 and key = $2', [scope, key])).rows[0];
    if (holder?.owner === owner) return false;
    if (holder) break;
  }
  throw new DomainError(taken);
}

/** Frees one key of `owner` (a key another owner holds stays theirs). */
export async function releaseClaim(db: Sql, scope: string, key: string, owner: string): Promise<void> {
  await db.query('delete from claims where scope = $1 and key = $2 and owner = $3', [scope, key, owner]);
}

/** Frees every key `owner` holds in `scope` but `keep`: the old name after a rename, all of them after a delete. */
export async function releaseClaims(db: Sql, scope: string, owner: string, keep?: string): Promise<void> {
  await db.query('delete from claims where scope = $1 and owner = $2 and key is distinct from $3', [scope, owner, keep ?? null]);
}

/** Claims `key`, then appends; a claim this call took is released when the append fails. */
export async function withClaim<T>(db: Sql, { scope, key, owner }: Claim, taken: ErrorCode, append: () => Promise<T>): Promise<T> {
  const took = await claim(db, scope, key, owner, taken);
  try {
    return await append();
  } catch (error) {
    if (took) await releaseClaim(db, scope, key, owner);
    throw error;
  }
}

/**
 * Takes many keys of `scope` at once (a bulk import), each for its owner: the keys this call took, and who
 * holds each of the others (an owner that held its key already is among the holders).
 */
export async function claimMany(
  db: Sql,
  scope: string,
  claims: ReadonlyArray<Omit<Claim, 'scope'>>,
): Promise<{ took: Set<string>; holders: Map<string, string> }> {
  if (claims.length === 0) return { took: new Set(), holders: new Map() };
  const inserted = await db.query<{ key: string }>(
    `insert into claims (scope, key, owner) select $1, * from unnest($2::text[], $3::text[]) on conflict (scope, key) do nothing returning key`,
    [scope, claims.map((c) => c.key), claims.map((c) => c.owner)],
  );
  const took = new Set(inserted.rows.map((r) => r.key));
  const others = claims.filter((c) => !took.has(c.key)).map((c) => c.key);
  const holders = new Map<string, string>();
  if (others.length > 0) {
    const held = await db.query<{ key: string; owner: string }>('select key, owner from claims where scope = $1 and key = any($2)', [
      scope,
      others,
    ]);
    for (const h of held.rows) holders.set(h.key, h.owner);
  }
  return { took, holders };
}

/** Frees keys of `scope`, each only if its owner still holds it: the claims of appends that failed. */
export async function releaseMany(db: Sql, scope: string, claims: ReadonlyArray<Omit<Claim, 'scope'>>): Promise<void> {
  if (claims.length === 0) return;
  await db.query(
    'delete from claims c using unnest($2::text[], $3::text[]) as r(key, owner) where c.scope = $1 and c.key = r.key and c.owner = r.owner',
    [scope, claims.map((c) => c.key), claims.map((c) => c.owner)],
  );
}

/** A rename: claims the new key, appends, then frees the owner's other keys in the scope. */
export async function moveClaim<T>(db: Sql, target: Claim, taken: ErrorCode, append: () => Promise<T>): Promise<T> {
  const result = await withClaim(db, target, taken, append);
  await releaseClaims(db, target.scope, target.owner, target.key);
  return result;
}

/**
 * Claims keys that rows already use (rows made before claims existed, or by a workflow that does not
 * claim), never taking one from its holder: run at start.
 */
export async function claimExisting(db: Sql, claims: readonly Claim[]): Promise<void> {
  if (claims.length === 0) return;
  await db.query(
    `insert into claims (scope, key, owner) select * from unnest($1::text[], $2::text[], $3::text[]) on conflict (scope, key) do nothing`,
    [claims.map((c) => c.scope), claims.map((c) => c.key), claims.map((c) => c.owner)],
  );
}

/** Which of `keys` are held in `scope`, by whom. */
export async function holdersOf(db: Sql, scope: string, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const held = await db.query<{ key: string; owner: string }>('select key, owner from claims where scope = $1 and key = any($2)', [
    scope,
    [...keys],
  ]);
  return new Map(held.rows.map((h) => [h.key, h.owner]));
}

/** The owners of the keys of `scope` that start with `prefix`. */
export async function ownersByPrefix(db: Sql, scope: string, prefix: string): Promise<string[]> {
  const held = await db.query<{ owner: string }>(
    `select owner from claims where scope = $1 and left(key, length($2)) = $2 order by claimed_at, owner`,
    [scope, prefix],
  );
  return held.rows.map((h) => h.owner);
}

/** Frees every key `owner` holds in `scope` but those in `keep`: what a record no longer uses after it is saved. */
export async function releaseClaimsBut(db: Sql, scope: string, owner: string, keep: readonly string[]): Promise<void> {
  await db.query('delete from claims where scope = $1 and owner = $2 and not (key = any($3))', [scope, owner, [...keep]]);
}
