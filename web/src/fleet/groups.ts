import { useQuery } from '@tanstack/react-query';
import type { GroupNode } from '@iot/contracts/identity/group.ts';
import { callRoute } from '../api/client.ts';

/**
 * The tenant's groups as select options, indented by depth; none when the caller may not list groups. `everyGroup`
 * asks without the current group (the header's switcher), which would otherwise narrow the tree to its own subtree.
 */
export function useGroupOptions({ everyGroup = false }: { everyGroup?: boolean } = {}) {
  return useQuery({
    queryKey: ['groups', everyGroup ? 'every' : 'options'],
    queryFn: async () => {
      const tree = await callRoute('group.tree', { query: {} }, { noRedirect: true, noStation: everyGroup }).catch(() => [] as GroupNode[]);
      const out: Array<{ value: string; label: string }> = [];
      const walk = (nodes: GroupNode[], depth: number) => {
        for (const n of nodes) {
          out.push({ value: n.id, label: `${'\u3000'.repeat(depth)}${n.name}` });
          walk(n.children as GroupNode[], depth + 1);
        }
      };
      walk(tree, 0);
      return out;
    },
  });
}
