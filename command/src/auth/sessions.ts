import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '@iot/contracts/ports/sql.ts';

export const sessionsSchema = `
create table auth_sessions (
  token_hash text primary key,
  subject_kind text not null,
  subject_id text not null,
  tenant_id text not null,
  ip text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index auth_sessions_subject on auth_sessions (subject_id);`;

export const SESSION_HOURS = 12;

/** Tokens are stored only as their SHA-256: a leaked table gives no usable token. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export async function createSession(
  db: Sql,
  subject: { kind: 'user' | 'app'; id: string; tenantId: string },
  ip: string | undefined,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `insert into auth_sessions (token_hash, subject_kind, subject_id, tenant_id, ip, expires_at)
     values ($1, $2, $3, $4, $5, now() + make_interval(hours => $6))`,
    [hashToken(token), subject.kind, subject.id, subject.tenantId, ip ?? null, SESSION_HOURS],
  );
  return token;
}

export async function revokeSession(db: Sql, tokenHash: string): Promise<void> {
  await db.query('update auth_sessions set revoked_at = now() where token_hash = $1 and revoked_at is null', [tokenHash]);
}

export async function revokeSubjectSessions(db: Sql, subjectId: string): Promise<void> {
  await db.query('update auth_sessions set revoked_at = now() where subject_id = $1 and revoked_at is null', [subjectId]);
}
