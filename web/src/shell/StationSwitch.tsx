import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Select } from '@radix-ui/themes';
import { useQueryClient } from '@tanstack/react-query';
import { STATION_KEY } from '../api/client.ts';
import { useGroupOptions } from '../fleet/groups.ts';

const ALL = '*';

/**
 * The header's group switcher (spec §6): the chosen group travels as `stationId` on every request, so
 * lists, counts and exports narrow to its subtree; "all groups" sends none.
 */
export function StationSwitch() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const groups = useGroupOptions({ everyGroup: true });
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
