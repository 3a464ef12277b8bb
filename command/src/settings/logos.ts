import type { Sql } from '@iot/contracts/ports/sql.ts';

/** Logo bytes, content-addressed: an event names the logo by its SHA-256, the bytes stay out of the log. */
export const logoSchema = `
create table settings_logos (
  sha256 text primary key,
  png bytea not null,
  created_at timestamptz not null default now()
);`;

export async function storeLogo(db: Sql, sha256: string, png: Uint8Array): Promise<void> {
  await db.query('insert into settings_logos (sha256, png) values ($1, $2) on conflict (sha256) do nothing', [sha256, png]);
}
