import type { Sql } from '@iot/contracts/ports/sql.ts';

/** The usernames of users by id, for naming who did what in a history (an id no user has is left out). */
export async function usernamesById(db: Sql, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; username: string }>('select id, username from rm_users where id = any($1)', [ids]);
  return new Map(rows.rows.map((r) => [r.id, r.username]));
}
