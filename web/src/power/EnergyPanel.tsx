import './i18n.ts';
import { DayRangeFields } from '../ui/DayRangeFields.tsx';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Callout, Card, DropdownMenu, Flex, Grid, Heading, SegmentedControl, Table, Text } from '@radix-ui/themes';
import { DownloadIcon } from '@radix-ui/react-icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { EChartsOption } from 'echarts';
import { priceKinds, type EnergyCycle, type EnergyUse } from '@iot/contracts/power/model.ts';
import { powerPerm } from '@iot/contracts/power/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { downloadRoute } from '../fleet/download.ts';
import { notice } from '../ui/feedback.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { Chart } from '../analysis/Chart.tsx';
import { instantsOf, lastDays, type DayRange } from '../analysis/range.ts';

const ALL = '*';
/** Sharp, peak, flat, valley, then what no period priced: red to green, grey last. */
const KIND_COLOURS = ['#E5484D', '#F76B15', '#2E68EA', '#30A46C', '#8B8D98'];
const kwhText = (v: number) => v.toLocaleString(undefined, { maximumFractionDigits: 2 });
const costText = (v: number | null, currency: string | null) =>
  v === null
    ? '--'
    : `${v.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}${currency ? ` ${currency}` : ''}`;

/** The stations the caller sees, for the picker. */
export function useStations() {
  return useQuery({ queryKey: ['power', 'stations'], queryFn: () => callRoute('power.stations', {}) });
}

/** Bars per window, one stacked series per price kind (and unpriced use when there is any). */
function stackedOption(windows: Array<EnergyUse & { window: string }>, names: Record<string, string>): EChartsOption {
  const kinds = [...priceKinds, ...(windows.some((w) => w.unpriced > 0) ? (['unpriced'] as const) : [])];
  return {
    color: KIND_COLOURS,
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 0 },
    grid: { left: 56, right: 24, top: 36, bottom: 32 },
    xAxis: { type: 'category', data: windows.map((w) => w.window) },
    yAxis: { type: 'value', name: 'kWh' },
    series: kinds.map((k) => ({ name: names[k], type: 'bar', stack: 'kwh', barMaxWidth: 36, data: windows.map((w) => w[k]) })),
  };
}

/**
 * Data analysis → business statistics → energy (issue 20, spec §7 power statistics): each station's use per day or
 * month split into sharp, peak, flat and valley periods and priced by its schedule, as a stacked bar chart and a
 * table, exported as CSV or XLSX.
 */
export function EnergyPanel() {
  const { t } = useTranslation();
  const me = useSession();
  const [draft, setDraft] = useState<DayRange>(() => lastDays(30));
  const [range, setRange] = useState<DayRange>(draft);
  const [cycle, setCycle] = useState<EnergyCycle>('day');
  const [groupId, setGroupId] = useState<string>(ALL);
  const stations = useStations();
  const query = { ...instantsOf(range), cycle, ...(groupId === ALL ? {} : { groupId }) };
  const stats = useQuery({
    queryKey: ['power', 'statistics', query],
    queryFn: () => callRoute('power.statistics', { query }),
    placeholderData: keepPreviousData,
  });
  const s = stats.data;
  const names = useMemo(
    () => ({ ...Object.fromEntries(priceKinds.map((k) => [k, t(`energy.kinds.${k}`)])), unpriced: t('energy.unpriced') }),
    [t],
  );
  const option = useMemo(() => (s ? stackedOption(s.windows, names) : null), [s, names]);
  const download = (format: 'csv' | 'xlsx') =>
    void downloadRoute('power.statisticsExport', { ...query, format }, `energy-${cycle}-${range.from}.${format}`).catch((e: unknown) =>
      notice.error(messageOf(e)),
    );
  const card = (label: string, value: string, testId: string) => (
    <Card key={testId}>
      <Text as="div" size="1" color="gray">
        {label}
      </Text>
      <Text as="div" size="5" weight="bold" data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
  const cellsOf = (u: EnergyUse, currency: string | null) => (
    <>
      {priceKinds.map((k) => (
        <Table.Cell key={k}>{kwhText(u[k])}</Table.Cell>
      ))}
      <Table.Cell>{u.unpriced > 0 ? kwhText(u.unpriced) : '--'}</Table.Cell>
      <Table.Cell>
        <Text weight="medium">{kwhText(u.kwh)}</Text>
      </Table.Cell>
      <Table.Cell>{costText(u.cost, currency)}</Table.Cell>
    </>
  );

  return (
    <Flex direction="column" gap="3" data-testid="energy">
      <Card>
        <Flex gap="3" align="end" wrap="wrap">
          <DayRangeFields value={draft} onChange={setDraft} labels={{ from: t('energy.from'), to: t('energy.to') }} />
          <div style={{ minWidth: 220 }}>
            <Text as="div" size="1" color="gray">
              {t('energy.station')}
            </Text>
            <SelectInput
              name={t('energy.station')}
              value={groupId}
              onChange={setGroupId}
              options={[
                { value: ALL, label: t('energy.allStations') },
                ...(stations.data ?? []).map((st) => ({ value: st.id, label: st.name })),
              ]}
            />
          </div>
          <div>
            <Text as="div" size="1" color="gray">
              {t('energy.cycle')}
            </Text>
            <SegmentedControl.Root value={cycle} onValueChange={(v) => setCycle(v === 'month' ? 'month' : 'day')}>
              <SegmentedControl.Item value="day">{t('energy.cycles.day')}</SegmentedControl.Item>
              <SegmentedControl.Item value="month">{t('energy.cycles.month')}</SegmentedControl.Item>
            </SegmentedControl.Root>
          </div>
          <Button onClick={() => setRange(draft)} disabled={!draft.from || !draft.to}>
            {t('energy.query')}
          </Button>
          {can(me, powerPerm.export) && (
            <DropdownMenu.Root>
              <DropdownMenu.Trigger>
                <Button variant="outline">
                  <DownloadIcon /> {t('energy.export')}
                </Button>
              </DropdownMenu.Trigger>
              <DropdownMenu.Content>
                {(['csv', 'xlsx'] as const).map((format) => (
                  <DropdownMenu.Item key={format} onSelect={() => download(format)}>
                    {format.toUpperCase()}
                  </DropdownMenu.Item>
                ))}
              </DropdownMenu.Content>
            </DropdownMenu.Root>
          )}
        </Flex>
      </Card>
      {stats.isError && (
        <Callout.Root color="red" role="alert">
          <Callout.Text>{messageOf(stats.error)}</Callout.Text>
        </Callout.Root>
      )}
      {stats.isLoading && <Text color="gray">{t('common.loading')}</Text>}
      {s && s.stations.length === 0 && (
        <Callout.Root color="gray" data-testid="energy-no-stations">
          <Callout.Text>{t('energy.noStations')}</Callout.Text>
        </Callout.Root>
      )}
      {s && s.stations.length > 0 && (
        <>
          <Grid columns={{ initial: '2', md: '6' }} gap="3" data-testid="energy-summary">
            {card(t('energy.totalKwh'), `${kwhText(s.total.kwh)} kWh`, 'energy-total')}
            {card(t('energy.totalCost'), costText(s.total.cost, s.currency), 'energy-cost')}
            {priceKinds.map((k) => card(t(`energy.kinds.${k}`), `${kwhText(s.total[k])} kWh`, `energy-${k}`))}
          </Grid>
          {s.windows.length === 0 ? (
            <Callout.Root color="gray" data-testid="energy-empty">
              <Callout.Text>{t('energy.empty')}</Callout.Text>
            </Callout.Root>
          ) : (
            option && (
              <Card>
                <Heading size="3" mb="2">
                  {t('energy.chart')}
                </Heading>
                <Chart option={option} label={t('energy.chart')} count={s.windows.length} height={320} />
              </Card>
            )
          )}
          <Card>
            <Heading size="3" mb="2">
              {t('energy.byStation')}
            </Heading>
            <Table.Root size="1" data-testid="energy-table">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>{t('energy.station')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('energy.window')}</Table.ColumnHeaderCell>
                  {priceKinds.map((k) => (
                    <Table.ColumnHeaderCell key={k}>{t(`energy.kinds.${k}`)} (kWh)</Table.ColumnHeaderCell>
                  ))}
                  <Table.ColumnHeaderCell>{t('energy.unpriced')} (kWh)</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('energy.kwh')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('energy.cost')}</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {s.stations.map((st) => (
                  <StationRows key={st.stationId} station={st} cells={cellsOf} />
                ))}
                <Table.Row data-testid="energy-total-row">
                  <Table.RowHeaderCell>
                    <Text weight="bold">{t('energy.total')}</Text>
                  </Table.RowHeaderCell>
                  <Table.Cell />
                  {cellsOf(s.total, s.currency)}
                </Table.Row>
              </Table.Body>
            </Table.Root>
          </Card>
        </>
      )}
    </Flex>
  );
}

type Station = NonNullable<Awaited<ReturnType<typeof callRoute<'power.statistics'>>>>['stations'][number];

/** A station's windows, its name and schedule on the first; a station without use shows one empty row. */
function StationRows({ station, cells }: { station: Station; cells: (u: EnergyUse, currency: string | null) => ReactNode }) {
  const { t } = useTranslation();
  const head = (
    <Table.RowHeaderCell rowSpan={Math.max(1, station.windows.length) + 1}>
      <Flex direction="column" gap="1">
        <Text weight="medium">{station.stationName}</Text>
        <Flex gap="1" wrap="wrap">
          <Badge color={station.schedule === 'none' ? 'gray' : station.schedule === 'station' ? 'blue' : 'cyan'}>
            {t(`energy.scheduleSource.${station.schedule}`)}
          </Badge>
          <Text size="1" color="gray">
            {t('energy.meters')}: {station.meters}
          </Text>
        </Flex>
      </Flex>
    </Table.RowHeaderCell>
  );
  return (
    <>
      {station.windows.length === 0 && (
        <Table.Row>
          {head}
          <Table.Cell colSpan={8}>
            <Text color="gray">{t('common.noData')}</Text>
          </Table.Cell>
        </Table.Row>
      )}
      {station.windows.map((w, i) => (
        <Table.Row key={w.window}>
          {i === 0 && head}
          <Table.Cell>{w.window}</Table.Cell>
          {cells(w, station.currency)}
        </Table.Row>
      ))}
      <Table.Row>
        <Table.Cell>
          <Text color="gray">{t('energy.total')}</Text>
        </Table.Cell>
        {cells(station.total, station.currency)}
      </Table.Row>
    </>
  );
}
