import './i18n.ts';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { Box, Tabs } from '@radix-ui/themes';
import { FaultStatsPage } from '../analysis/FaultStatsPage.tsx';
import { EnergyPanel } from './EnergyPanel.tsx';
import { PriceSchedulesPanel } from './PriceSchedulesPanel.tsx';

const tabs = ['alarms', 'energy', 'prices'] as const;
type Tab = (typeof tabs)[number];

/**
 * Data analysis → business statistics: the alarm statistics, the power area's energy per station (issue 20) and the
 * price schedules that cost it. The tab is in the address (`?tab=energy`), so a link or a reload keeps it.
 */
export function BusinessStatsPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: Tab = (tabs as readonly string[]).includes(asked ?? '') ? (asked as Tab) : 'alarms';
  return (
    <Tabs.Root value={tab} onValueChange={(v) => setParams(v === 'alarms' ? {} : { tab: v }, { replace: true })}>
      <Tabs.List>
        <Tabs.Trigger value="alarms">{t('energy.tabAlarms')}</Tabs.Trigger>
        <Tabs.Trigger value="energy">{t('energy.tabEnergy')}</Tabs.Trigger>
        <Tabs.Trigger value="prices">{t('energy.tabPrices')}</Tabs.Trigger>
      </Tabs.List>
      <Box pt="3">
        <Tabs.Content value="alarms">
          <FaultStatsPage view="business" />
        </Tabs.Content>
        <Tabs.Content value="energy">
          <EnergyPanel />
        </Tabs.Content>
        <Tabs.Content value="prices">
          <PriceSchedulesPanel />
        </Tabs.Content>
      </Box>
    </Tabs.Root>
  );
}
