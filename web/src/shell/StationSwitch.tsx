import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Select } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { GroupNode } from '@iot/contracts/identity/group.ts';
import { callRoute, STATION_KEY } from '../api/client.ts';

const ALL = '*';

/** Every group of the tenant, indented by depth: asked without the current group, which would narrow the tree to itself. */
function useAllGroups() {
  return useQuery({
    queryKey: ['groups', 'switcher'],
    queryFn: async () => {
      const tree = await callRoute('group.tree', { query: {} }, { noRedirect: true, noStation: true }).catch(() => [] as GroupNode[]);
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

/**
 * The header's group switcher (spec §6): the chosen group travels as `stationId` on every request, so
 * lists, counts and exports narrow to its subtree; "all groups" sends none.
 */
export function StationSwitch() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const groups = useAllGroups();
  const [station, setStation] = useState(() => localStorage.getItem(STATION_KEY) ?? '');
  const options = groups.data ?? [];
  if (options.length === 0) return null;
  // A group that no longer exists (or belongs to another login) is forgotten.
  const current = options.some((o) => o.value === station) ? station : '';
  const choose = (value: string) => {
    const next = value === ALL ? '' : value;
    if (next) localStorage.setItem(STATION_KEY, next);
    else localStorage.removeItem(STATION_KEY);
    setStation(next);
    void queryClient.invalidateQueries();
  };
  return (
    <Select.Root value={current || ALL} onValueChange={choose} size="1">
      <Select.Trigger variant="ghost" aria-label={t('shell.station')} data-testid="station-switch" />
      <Select.Content position="popper">
        <Select.Item value={ALL}>{t('shell.allStations')}</Select.Item>
        {options.map((o) => (
          <Select.Item key={o.value} value={o.value}>
            {o.label}
          </Select.Item>
        ))}
      </Select.Content>
    </Select.Root>
  );
}
