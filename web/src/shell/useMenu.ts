import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../api/client.ts';
import { useSession } from '../auth/useSession.ts';
import { filterMenu, staticMenu, type MenuNode } from './menu.ts';

/** A row of the server's menu tree (spec §7: title, path, icon, permission, type, component, children). */
interface ServerMenu {
  id: string | number;
  title?: string;
  name?: string;
  path?: string | null;
  icon?: string | null;
  permission?: string | null;
  type?: string;
  children?: ServerMenu[];
}

const fromServer = (rows: ServerMenu[]): MenuNode[] =>
  rows.map((row) => ({
    key: String(row.id),
    title: row.title ?? row.name ?? '',
    path: row.path ?? undefined,
    icon: row.icon ?? undefined,
    permission: undefined, // The server already filtered by permission.
    type: (row.type as MenuNode['type']) ?? 'menu',
    children: row.children ? fromServer(row.children) : undefined,
  }));

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
        return filterMenu(fromServer(await api.get<ServerMenu[]>('/api/auth/menu')), user);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return filterMenu(staticMenu, user);
        throw error;
      }
    },
  });
}
