import type { MenuFields } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { Fields } from '../shared/row.ts';

/** An entry of the platform's menu catalogue as the menus projection keeps it (rm_menus). */
export type MenuRecord = Fields<MenuFields> & {
  id: string;
  builtin: boolean;
  updatedAt: Date;
};

const MENU = `id, parent_id as "parentId", type, name, router_name as "routerName", icon, permission, path, component, sort, builtin,
  updated_at as "updatedAt"`;

/** The whole catalogue in its order (sort, then id). */
export async function allMenus(db: Sql): Promise<MenuRecord[]> {
  return (await db.query<MenuRecord>(`select ${MENU} from rm_menus order by sort, id`)).rows;
}

/** Those of `ids` that are entries of the catalogue. */
export async function menusByIds(db: Sql, ids: string[]): Promise<MenuRecord[]> {
  if (ids.length === 0) return [];
  return (await db.query<MenuRecord>(`select ${MENU} from rm_menus where id = any($1)`, [ids])).rows;
}

/** Whether an entry has another below it. */
export async function menuHasChildren(db: Sql, id: string): Promise<boolean> {
  return (await db.query('select 1 from rm_menus where parent_id = $1 limit 1', [id])).rowCount > 0;
}

/** The permissions the entries among `ids` carry, each once (an id of a deleted entry grants nothing). */
export async function permissionsOfMenus(db: Sql, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<{ permission: string }>(
    'select distinct permission from rm_menus where id = any($1) and permission is not null',
    [ids],
  );
  return rows.rows.map((r) => r.permission);
}
