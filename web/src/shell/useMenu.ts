import { useQuery } from '@tanstack/react-query';
import { ApiError, callRoute } from '../api/client.ts';
import { useSession } from '../auth/useSession.ts';
import { filterMenu, staticMenu, titleByPath, type MenuNode } from './menu.ts';

const HOME_ALIASES = new Set(['/home', '/home/index', '/index']);

/** A row of the server's menu tree (spec §7: title, path, icon, permission, type, component, children). */
interface ServerMenu {
  id: string | number;
  title?: string;
  name?: string;
  path?: string | null;
  icon?: string | null;
  permission?: string | null;
  type?: string;
  /** A built-in entry an administrator renamed: its stored title wins over the web's translation. */
  renamed?: boolean;
  children?: ServerMenu[];
}

/** Server entries in the web's terms: the home entry is /index, titles are translated by path when the web knows it. */
export const fromServer = (rows: ServerMenu[]): MenuNode[] =>
  rows.map((row): MenuNode => {
    const children = row.children?.filter((c) => c.type !== 'button' && c.type !== 'interface') ?? [];
    // A directory whose only child is its own screen (the home entry) shows as that screen.
    const only = children.length === 1 ? children[0]! : null;
    if (only && HOME_ALIASES.has(only.path ?? ''))
      return { key: String(row.id), title: 'menu.home', path: '/index', icon: row.icon ?? 'home', type: 'menu' };
    const path = row.path ?? undefined;
    const known = path && !row.renamed ? titleByPath.get(path) : undefined;
    return {
      key: String(row.id),
      title: known ?? row.title ?? row.name ?? '',
      path: children.length > 0 ? undefined : HOME_ALIASES.has(path ?? '') ? '/index' : path,
      prefix: children.length > 0 ? path : undefined,
      icon: staticMenu.find((n) => n.prefix && n.prefix === path)?.icon ?? row.icon ?? undefined,
      permission: undefined, // The server already filtered by permission.
      type: children.length > 0 ? 'directory' : ((row.type as MenuNode['type']) ?? 'menu'),
      children: children.length > 0 ? fromServer(children) : undefined,
    };
  });

/** The menu tree the user may see: the server's when it has a menu route, else spec §2's screens filtered by permission. */
export function useMenu() {
  const user = useSession();
  return useQuery({
    queryKey: ['menu', user?.id ?? ''],
    enabled: user !== null,
    staleTime: 60_000,
    retry: false,
    queryFn: async (): Promise<MenuNode[]> => {
      try {
        return filterMenu(fromServer(await callRoute('menu.tree', {})), user);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return filterMenu(staticMenu, user);
        throw error;
      }
    },
  });
}
