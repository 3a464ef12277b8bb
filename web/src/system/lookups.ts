import { useQuery } from '@tanstack/react-query';
import { routes } from '@iot/contracts';
import type { GroupNode } from '@iot/contracts/identity/group.ts';
import type { RoleRow } from '@iot/contracts/identity/role.ts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';

/**
 * Lookups a screen shows beside its own rows (role and group names, pickers). A user may open a screen without
 * holding the permissions of its lookups (an operator on the user list): a refused lookup leaves the names out,
 * it never sends the user to login (spec §8 sends a 403 of the screen's own calls there).
 */
const quiet = { noRedirect: true };

/** Roles to pick from in the user form: asked only of a user who may list roles (no background 403). */
export function useRoles() {
  const user = useSession();
  return useQuery({
    queryKey: ['roles', 'all'],
    enabled: can(user, routes['role.list'].permission),
    retry: false,
    queryFn: async () =>
      (await callRoute('role.list', { query: { page: 1, pageSize: 500 } }, quiet).catch(() => ({ rows: [] as RoleRow[] }))).rows,
  });
}

/** The group tree, for pickers: asked only of a user who may list groups. */
export function useGroups() {
  const user = useSession();
  return useQuery({
    queryKey: ['groups', 'tree'],
    enabled: can(user, routes['group.tree'].permission),
    retry: false,
    queryFn: () => callRoute('group.tree', {}, quiet).catch(() => [] as GroupNode[]),
  });
}

/** The menu tree (with buttons), for granting to roles and picking parents. */
export function useMenuTree() {
  return useQuery({ queryKey: ['menus', 'tree'], retry: false, queryFn: () => callRoute('menu.list', {}) });
}

/** A tree as indented options: `— child` under its parent. */
export function treeOptions<T extends { id: string; children: T[] }>(
  nodes: T[],
  label: (node: T) => string,
  depth = 0,
): Array<{ value: string; label: string }> {
  return nodes.flatMap((n) => [
    { value: n.id, label: `${'\u3000'.repeat(depth)}${label(n)}` },
    ...treeOptions(n.children ?? [], label, depth + 1),
  ]);
}
