import { useQuery } from '@tanstack/react-query';
import type { GroupNode } from '@iot/contracts/identity/group.ts';
import { callRoute } from '../api/client.ts';

/** The tenant's groups as select options, indented by depth; none when the caller may not list groups. */
export function useGroupOptions() {
  return useQuery({
    queryKey: ['groups', 'options'],
    queryFn: async () => {
      const tree = await callRoute('group.tree', { query: {} }, { noRedirect: true }).catch(() => [] as GroupNode[]);
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
