import { z } from 'zod';
import { envelope, menuNode, menuTreeQuery, perm, type MenuRow } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { hasPermission, principalOf, type Principal } from '@iot/infra/http/principal.ts';
import { treeOf } from '../shared/paging.ts';
import { builtinNames, englishTitleOf } from '@iot/command/menu/builtin.ts';

/** The title in the caller's language: built-in entries nobody renamed have an English one. */
const titleOf = (r: Record<string, unknown>, lang: 'zh' | 'en'): string => {
  const id = r.id as string;
  const name = r.name as string;
  if (lang !== 'en' || r.builtin !== true || builtinNames.get(id) !== name) return name;
  return englishTitleOf({ id, type: r.type as string }) ?? name;
};

const toMenuRow = (r: Record<string, unknown>, lang: 'zh' | 'en'): MenuRow => ({
  id: r.id as string,
  type: r.type as MenuRow['type'],
  name: r.name as string,
  title: titleOf(r, lang),
  routerName: (r.router_name as string | null) ?? null,
  icon: (r.icon as string | null) ?? null,
  permission: (r.permission as string | null) ?? null,
  path: r.path as string,
  component: (r.component as string | null) ?? null,
  sort: r.sort as number,
  parentId: (r.parent_id as string | null) ?? null,
  builtin: r.builtin === true,
  renamed: r.builtin === true && builtinNames.get(r.id as string) !== r.name,
});

async function allMenus(db: Sql, lang: 'zh' | 'en'): Promise<MenuRow[]> {
  return (await db.query('select * from rm_menus order by sort, id')).rows.map((r) => toMenuRow(r, lang));
}

/** The entries a principal may see: those whose permission it holds, entries without one that lead to such, and their ancestors. */
export function visibleMenus(menus: MenuRow[], principal: Principal): MenuRow[] {
  const byId = new Map(menus.map((m) => [m.id, m]));
  const visible = new Set<string>();
  for (const m of menus) {
    if (!m.permission || !hasPermission(principal, m.permission)) continue;
    for (let at: MenuRow | undefined = m; at && !visible.has(at.id); at = at.parentId ? byId.get(at.parentId) : undefined)
      visible.add(at.id);
  }
  return menus.filter((m) => visible.has(m.id));
}

function subtree(menus: MenuRow[], parentId: string | undefined): MenuRow[] {
  if (!parentId) return menus;
  const keep = new Set([parentId]);
  for (let grew = true; grew;) {
    grew = false;
    for (const m of menus) {
      if (!m.parentId || !keep.has(m.parentId) || keep.has(m.id)) continue;
      keep.add(m.id);
      grew = true;
    }
  }
  return menus.filter((m) => keep.has(m.id) && m.id !== parentId);
}

/** Spec §6/§7: the menu tree the server returns for the user drives what the browser shows. */
export const menuQueryRoutes: RoutesPlugin = async (app, { db }) => {
  app.get(
    '/api/auth/menu',
    {
      config: { permission: 'authenticated' },
      schema: { tags: ['menu'], querystring: menuTreeQuery, response: { 200: envelope(z.array(menuNode)) } },
    },
    async (request) => {
      const { parentId, type } = request.query;
      let menus = subtree(visibleMenus(await allMenus(db, request.lang), principalOf(request)), parentId);
      if (type) menus = menus.filter((m) => m.type === type);
      return ok(treeOf(menus) as z.infer<typeof menuNode>[]);
    },
  );

  /** The whole catalogue, for granting menus to roles: `platform:` entries only for the system administrator. */
  app.get(
    '/api/auth/menu/list',
    {
      config: { permission: perm.menuList },
      schema: { tags: ['menu'], querystring: menuTreeQuery, response: { 200: envelope(z.array(menuNode)) } },
    },
    async (request) => {
      const principal = principalOf(request);
      const { parentId, type } = request.query;
      let menus = subtree(await allMenus(db, request.lang), parentId).filter(
        (m) => principal.isSystemAdmin || !m.permission?.startsWith('platform:'),
      );
      if (type) menus = menus.filter((m) => m.type === type);
      return ok(treeOf(menus) as z.infer<typeof menuNode>[]);
    },
  );
};
