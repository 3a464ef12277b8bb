import './i18n.ts';
import './screen.css';
import '../alarm/i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Flex, SegmentedControl } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { callRoute } from '../api/client.ts';
import { BigScreenPage } from '../operation/BigScreenPage.tsx';
import { ScreenList } from './ScreenList.tsx';
import { SCREENS } from './useScreen.ts';

/**
 * Operation center → data big screen (issue 20): the built-in overview board, and the tenant's own screens designed
 * on a 24-column grid of a 1920×1080 screen. A tenant without screens sees the overview first.
 */
export function BigScreensPage() {
  const { t } = useTranslation();
  const list = useQuery({ queryKey: [SCREENS, 'list'], queryFn: () => callRoute('screen.list', { query: { pageSize: 100 } }) });
  const [tab, setTab] = useState<'overview' | 'designed' | null>(null);
  const shown = tab ?? (list.data && list.data.rows.length > 0 ? 'designed' : 'overview');
  return (
    <Flex direction="column" gap="3">
      <Flex>
        <SegmentedControl.Root value={shown} onValueChange={(v) => setTab(v === 'designed' ? 'designed' : 'overview')}>
          <SegmentedControl.Item value="overview">{t('screen.overview')}</SegmentedControl.Item>
          <SegmentedControl.Item value="designed">{t('screen.designed')}</SegmentedControl.Item>
        </SegmentedControl.Root>
      </Flex>
      {shown === 'overview' ? <BigScreenPage /> : <ScreenList />}
    </Flex>
  );
}
