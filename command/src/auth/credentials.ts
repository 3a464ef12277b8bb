import { hash, verify } from '@node-rs/argon2';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * Password hashes live here, outside the event log: no password or hash ever enters an event, and
 * rebuilding read models never touches them.
 */
export const credentialsSchema = `
create table auth_credentials (
  subject_id text primary key,
  tenant_id text not null,
  password_hash text not null,
  updated_at timestamptz not null default now()
);`;

// argon2id (the package's default algorithm) with OWASP's minimum memory cost.
const ARGON = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** A fixed hash to verify against when the account does not exist, so both cases take the same time. */
let decoy: Promise<string> | null = null;

export async function setPassword(db: Sql, subjectId: string, tenantId: string, password: string): Promise<void> {
  const passwordHash = await hash(password, ARGON);
  await db.query(
    `insert into auth_credentials (subject_id, tenant_id, password_hash) values ($1, $2, $3)
     on conflict (subject_id) do update set password_hash = excluded.password_hash, tenant_id = excluded.tenant_id, updated_at = now()`,
    [subjectId, tenantId, passwordHash],
  );
}

export async function verifyPassword(db: Sql, subjectId: string | null, password: string): Promise<boolean> {
  const row = subjectId
    ? (await db.query<{ password_hash: string }>('select password_hash from auth_credentials where subject_id = $1', [subjectId])).rows[0]
    : undefined;
  if (!row) {
    decoy ??= hash('decoy-password', ARGON);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(row.password_hash, password).catch(() => false);
}

/** Moves a credential to a new subject: a registration's password becomes its tenant admin's. */
export async function moveCredential(db: Sql, from: string, to: string, tenantId: string): Promise<boolean> {
  const result = await db.query('update auth_credentials set subject_id = $2, tenant_id = $3, updated_at = now() where subject_id = $1', [
    from,
    to,
    tenantId,
  ]);
  return result.rowCount > 0;
}
