import { createHash, randomInt } from 'node:crypto';
import { DomainError } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** Verification codes are short-lived secrets, not domain facts: they live in a table, never in events. */
export const codesSchema = `
create table auth_verification_codes (
  target text primary key,
  code_hash text not null,
  sent_at timestamptz not null,
  expires_at timestamptz not null,
  attempts int not null default 0
);`;

export const RESEND_SECONDS = 60;
const VALID_MINUTES = 10;
const MAX_ATTEMPTS = 5;

const hashCode = (target: string, code: string) => createHash('sha256').update(`${target}\0${code}`).digest('hex');
const normalise = (target: string) => target.trim().toLowerCase();

/** Issues a 6-digit code for a phone or email; refused within RESEND_SECONDS of the previous one. */
export async function issueCode(db: Sql, rawTarget: string): Promise<{ code: string; resendAfter: number }> {
  const target = normalise(rawTarget);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const result = await db.query(
    `insert into auth_verification_codes (target, code_hash, sent_at, expires_at, attempts)
     values ($1, $2, now(), now() + make_interval(mins => $3), 0)
     on conflict (target) do update set code_hash = excluded.code_hash, sent_at = excluded.sent_at, expires_at = excluded.expires_at, attempts = 0
     where auth_verification_codes.sent_at < now() - make_interval(secs => $4)`,
    [target, hashCode(target, code), VALID_MINUTES, RESEND_SECONDS],
  );
  if (result.rowCount === 0) throw new DomainError('CODE_TOO_SOON', { resendAfter: RESEND_SECONDS });
  return { code, resendAfter: RESEND_SECONDS };
}

/** Checks and consumes a code: right once (two requests with it cannot both win), within its time, with a few tries. */
export async function consumeCode(db: Sql, rawTarget: string, code: string): Promise<void> {
  const target = normalise(rawTarget);
  const consumed = await db.query(
    `delete from auth_verification_codes where target = $1 and code_hash = $2 and expires_at > now() and attempts < $3 returning 1`,
    [target, hashCode(target, code), MAX_ATTEMPTS],
  );
  if (consumed.rowCount === 1) return;
  await db.query('update auth_verification_codes set attempts = attempts + 1 where target = $1', [target]);
  throw new DomainError('CODE_INVALID');
}
