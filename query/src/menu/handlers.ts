import { builtinNames, englishTitleOf, type MenuNode, type MenuRoutes, type MenuRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { hasPermission, type Principal } from '@iot/contracts/http/principal.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { allMenus, type MenuRecord } from '@iot/projections/menu/read.ts';
import { treeOf } from '../shared/paging.ts';

/** The title in the caller's language: built-in entries nobody renamed have an English one. */
const titleOf = (m: MenuRecord, lang: 'zh' | 'en'): string => {
  if (lang !== 'en' || !m.builtin || builtinNames.get(m.id) !== m.name) return m.name;
  return englishTitleOf(m) ?? m.name;
};

const toMenuRow = (m: MenuRecord, lang: 'zh' | 'en'): MenuRow => ({
  id: m.id,
  type: m.type,
  name: m.name,
  title: titleOf(m, lang),
  routerName: m.routerName,
  icon: m.icon,
  permission: m.permission,
  path: m.path,
  component: m.component,
  sort: m.sort,
  parentId: m.parentId,
  builtin: m.builtin,
  renamed: m.builtin && builtinNames.get(m.id) !== m.name,
});

const menusOf = async (db: Sql, lang: 'zh' | 'en'): Promise<MenuRow[]> => (await allMenus(db)).map((m) => toMenuRow(m, lang));

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

/** The entries below `parentId` (all of them without one). */
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

const treeOfType = (menus: MenuRow[], type: MenuRow['type'] | undefined): MenuNode[] =>
  treeOf(type ? menus.filter((m) => m.type === type) : menus);

/** Spec §6/§7: the menu tree the server returns for the user drives what the browser shows. */
export const menuQueryHandlers: Pick<Handlers<MenuRoutes>, 'menu.tree' | 'menu.list'> = {
  async 'menu.tree'({ query }, ctx) {
    const menus = visibleMenus(await menusOf(ctx.ports.db, ctx.lang), callerOf(ctx));
    return treeOfType(subtree(menus, query.parentId), query.type);
  },

  /** The whole catalogue, for granting menus to roles: `platform:` entries only for the system administrator. */
  async 'menu.list'({ query }, ctx) {
    const caller = callerOf(ctx);
    const menus = subtree(await menusOf(ctx.ports.db, ctx.lang), query.parentId).filter(
      (m) => caller.isSystemAdmin || !m.permission?.startsWith('platform:'),
    );
    return treeOfType(menus, query.type);
  },
};
