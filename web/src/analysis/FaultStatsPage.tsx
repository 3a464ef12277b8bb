import './faultI18n.ts';
import '../alarm/i18n.ts';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { langOf } from '../i18n/index.ts';
import { Button, Callout, Card, DropdownMenu, Flex, Grid, Heading, Table, Text } from '@radix-ui/themes';
import { DownloadIcon } from '@radix-ui/react-icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FaultStats, FaultView } from '@iot/contracts/analysis/model.ts';
import { analysisPerm } from '@iot/contracts/analysis/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { notice } from '../ui/feedback.tsx';
import { downloadRoute } from '../fleet/download.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { Chart, barOption, lineOption, pieOption } from './Chart.tsx';
import { daysOf, durationText, instantsOf, lastDays, type DayRange } from './range.ts';
import { DayRangeFields } from '../ui/DayRangeFields.tsx';

const statsRoute = {
  business: 'analysis.business',
  region: 'analysis.regionFault',
  garage: 'analysis.garageFault',
  project: 'analysis.projectFault',
  national: 'analysis.nationalFault',
} as const;
const exportRoute = {
  business: 'analysis.businessExport',
  region: 'analysis.regionFaultExport',
  garage: 'analysis.garageFaultExport',
  project: 'analysis.projectFaultExport',
  national: 'analysis.nationalFaultExport',
} as const;
const exportPerm = {
  business: analysisPerm.businessExport,
  region: analysisPerm.regionFaultExport,
  garage: analysisPerm.garageFaultExport,
  project: analysisPerm.projectFaultExport,
  national: analysisPerm.nationalFaultExport,
} as const;
const ALL = '*';
const GROUPS_PAGE = 10;

/** The groups the view narrows to: the whole tree (region, business), or the groups of the view's §9 type. */
function useViewGroups(view: FaultView) {
  return useQuery({
    queryKey: ['analysis', 'groups', view],
    queryFn: async () => {
      if (view === 'garage' || view === 'project') {
        const page = await callRoute('group.list', { query: { type: view, pageSize: 500 } }, { noRedirect: true }).catch(() => null);
        return (page?.rows ?? []).map((g) => ({ value: g.id, label: g.name }));
      }
      const tree = await callRoute('group.tree', { query: {} }, { noRedirect: true }).catch(() => []);
      const out: Array<{ value: string; label: string }> = [];
      const walk = (nodes: typeof tree, depth: number) => {
        for (const n of nodes) {
          out.push({ value: n.id, label: `${'\u3000'.repeat(depth)}${n.name}` });
          walk(n.children, depth + 1);
        }
      };
      walk(tree, 0);
      return out;
    },
    enabled: view !== 'national',
  });
}

/**
 * A statistics screen (spec §2 data analysis): alarm counts and durations over a range of days, by level, day,
 * product and the view's groups, the devices with the most alarms; each table exported as CSV or XLSX.
 */
export function FaultStatsPage({ view }: { view: FaultView }) {
  const { t, i18n } = useTranslation();
  const lang = langOf(i18n.language);
  const me = useSession();
  const [draft, setDraft] = useState<DayRange>(() => lastDays(30));
  const [range, setRange] = useState<DayRange>(draft);
  const [groupId, setGroupId] = useState<string>(ALL);
  const [top, setTop] = useState(10);
  const [groupPage, setGroupPage] = useState(1);
  const groups = useViewGroups(view);
  const query = { ...instantsOf(range), top, ...(groupId === ALL ? {} : { groupId }) };
  const stats = useQuery({
    queryKey: ['analysis', view, query],
    queryFn: () => callRoute(statsRoute[view], { query }),
    placeholderData: keepPreviousData,
  });
  const s = stats.data as FaultStats | undefined;
  const groupName = (r: { groupId: string | null; groupName: string | null }) => r.groupName ?? t('fault.ungrouped');
  const pick = (days: number) => {
    const next = lastDays(days);
    setDraft(next);
    setRange(next);
    setGroupPage(1);
  };
  const download = (table: 'groups' | 'devices' | 'products', format: 'csv' | 'xlsx') =>
    void downloadRoute(exportRoute[view], { ...query, table, format }, `${view}-${table}-${range.from}.${format}`).catch((e: unknown) =>
      notice.error(messageOf(e)),
    );

  const charts = useMemo(() => {
    if (!s) return null;
    const days = daysOf(range);
    const perDay = new Map(s.byDay.map((d) => [d.day, d]));
    return {
      groups: barOption(
        s.byGroup.slice(0, 15).map(groupName),
        s.byGroup.slice(0, 15).map((r) => r.alarms),
        true,
      ),
      levels: pieOption(s.byLevel.map((l) => ({ name: t(`alarm.levels.${l.level}`), value: l.alarms }))),
      days: lineOption(days, [
        { name: t('fault.raised'), values: days.map((day) => perDay.get(day)?.alarms ?? 0) },
        { name: t('fault.clearedSeries'), values: days.map((day) => perDay.get(day)?.cleared ?? 0) },
      ]),
      products: pieOption(s.byProduct.map((p) => ({ name: p.productName ?? t('fault.noProduct'), value: p.alarms }))),
    };
  }, [s, t, range]); // eslint-disable-line react-hooks/exhaustive-deps

  const groupRows = s?.byGroup.slice((groupPage - 1) * GROUPS_PAGE, groupPage * GROUPS_PAGE) ?? [];
  const groupPages = Math.max(1, Math.ceil((s?.byGroup.length ?? 0) / GROUPS_PAGE));
  const card = (label: string, value: string | number, testId: string, colour?: 'red' | 'green') => (
    <Card key={testId}>
      <Text as="div" size="1" color="gray">
        {label}
      </Text>
      <Text as="div" size="6" weight="bold" color={colour} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );

  return (
    <Flex direction="column" gap="3" data-testid={`fault-${view}`}>
      <Card>
        <Flex gap="3" align="end" wrap="wrap">
          <DayRangeFields value={draft} onChange={setDraft} labels={{ from: t('fault.from'), to: t('fault.to') }} />
          {view !== 'national' && (
            <div style={{ minWidth: 220 }}>
              <Text as="div" size="1" color="gray">
                {view === 'garage' ? t('fault.garage') : view === 'project' ? t('fault.project') : t('fault.region')}
              </Text>
              <SelectInput
                name="groupId"
                value={groupId}
                onChange={(v) => {
                  setGroupId(v);
                  setGroupPage(1);
                }}
                options={[{ value: ALL, label: view === 'region' ? t('fault.allRegions') : t('fault.all') }, ...(groups.data ?? [])]}
              />
            </div>
          )}
          <Button
            onClick={() => {
              setRange(draft);
              setGroupPage(1);
            }}
            disabled={!draft.from || !draft.to}
          >
            {t('fault.query')}
          </Button>
          <Flex gap="1">
            {(
              [
                ['today', 1],
                ['d7', 7],
                ['d30', 30],
                ['d90', 90],
              ] as const
            ).map(([k, days]) => (
              <Button key={k} variant="soft" color="gray" onClick={() => pick(days)}>
                {t(`fault.presets.${k}`)}
              </Button>
            ))}
          </Flex>
          {can(me, exportPerm[view]) && (
            <DropdownMenu.Root>
              <DropdownMenu.Trigger>
                <Button variant="outline">
                  <DownloadIcon /> {t('fault.export')}
                </Button>
              </DropdownMenu.Trigger>
              <DropdownMenu.Content>
                {(['groups', 'devices', 'products'] as const).map((table) =>
                  (['csv', 'xlsx'] as const).map((format) => (
                    <DropdownMenu.Item key={`${table}-${format}`} onSelect={() => download(table, format)}>
                      {t(`fault.export${table === 'groups' ? 'Groups' : table === 'devices' ? 'Devices' : 'Products'}`)} (
                      {format.toUpperCase()})
                    </DropdownMenu.Item>
                  )),
                )}
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
      {s && (
        <>
          <Grid columns={{ initial: '2', md: '6' }} gap="3" data-testid="fault-summary">
            {card(t('fault.alarms'), s.summary.alarms, 'sum-alarms')}
            {card(t('fault.active'), s.summary.active, 'sum-active', s.summary.active > 0 ? 'red' : undefined)}
            {card(t('fault.cleared'), s.summary.cleared, 'sum-cleared', 'green')}
            {card(t('fault.devices'), s.summary.devices, 'sum-devices')}
            {card(t('fault.duration'), durationText(s.summary.durationSeconds, lang), 'sum-duration')}
            {card(t('fault.meanClear'), durationText(s.summary.meanClearSeconds, lang), 'sum-mttc')}
          </Grid>
          {s.summary.alarms === 0 ? (
            <Callout.Root color="gray" data-testid="fault-empty">
              <Callout.Text>{t('fault.empty')}</Callout.Text>
            </Callout.Root>
          ) : (
            charts && (
              <Grid columns={{ initial: '1', md: '2' }} gap="3">
                <Card>
                  <Heading size="3" mb="2">
                    {t(`fault.byGroup.${view}`)}
                  </Heading>
                  <Chart option={charts.groups} label={t(`fault.byGroup.${view}`)} count={Math.min(15, s.byGroup.length)} />
                </Card>
                <Card>
                  <Heading size="3" mb="2">
                    {t('fault.byDay')}
                  </Heading>
                  <Chart option={charts.days} label={t('fault.byDay')} count={daysOf(range).length} />
                </Card>
                <Card>
                  <Heading size="3" mb="2">
                    {t('fault.byLevel')}
                  </Heading>
                  <Chart option={charts.levels} label={t('fault.byLevel')} count={s.byLevel.length} />
                </Card>
                <Card>
                  <Heading size="3" mb="2">
                    {t('fault.byProduct')}
                  </Heading>
                  <Chart option={charts.products} label={t('fault.byProduct')} count={s.byProduct.length} />
                </Card>
              </Grid>
            )
          )}
          <Card>
            <Heading size="3" mb="2">
              {t(`fault.byGroup.${view}`)}
            </Heading>
            <Table.Root size="1" data-testid="fault-groups">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>{t('fault.group')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.groupType')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.count')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.active')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.devices')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.duration')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.meanClearShort')}</Table.ColumnHeaderCell>
                  {view === 'region' && <Table.ColumnHeaderCell />}
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {groupRows.length === 0 && (
                  <Table.Row>
                    <Table.Cell colSpan={8}>
                      <Text color="gray">{t('common.noData')}</Text>
                    </Table.Cell>
                  </Table.Row>
                )}
                {groupRows.map((r) => (
                  <Table.Row key={r.groupId ?? 'none'}>
                    <Table.Cell>{groupName(r)}</Table.Cell>
                    <Table.Cell>{r.groupType ? t(`groupType.${r.groupType}`) : '-'}</Table.Cell>
                    <Table.Cell>{r.alarms}</Table.Cell>
                    <Table.Cell>{r.active}</Table.Cell>
                    <Table.Cell>{r.devices}</Table.Cell>
                    <Table.Cell>{durationText(r.durationSeconds, lang)}</Table.Cell>
                    <Table.Cell>{durationText(r.meanClearSeconds, lang)}</Table.Cell>
                    {view === 'region' && (
                      <Table.Cell>
                        {r.groupId && r.groupId !== groupId && (
                          <Button
                            size="1"
                            variant="ghost"
                            onClick={() => {
                              setGroupId(r.groupId!);
                              setGroupPage(1);
                            }}
                          >
                            {t('fault.drill')}
                          </Button>
                        )}
                      </Table.Cell>
                    )}
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
            {groupPages > 1 && (
              <Flex gap="2" justify="end" align="center" mt="2">
                <Button size="1" variant="soft" disabled={groupPage <= 1} onClick={() => setGroupPage(groupPage - 1)}>
                  ‹
                </Button>
                <Text size="1">
                  {groupPage} / {groupPages}
                </Text>
                <Button size="1" variant="soft" disabled={groupPage >= groupPages} onClick={() => setGroupPage(groupPage + 1)}>
                  ›
                </Button>
              </Flex>
            )}
          </Card>
          <Card>
            <Flex justify="between" align="center" mb="2">
              <Heading size="3">{t('fault.topDevices')}</Heading>
              <div style={{ width: 100 }}>
                <SelectInput
                  name="top"
                  value={String(top)}
                  onChange={(v) => setTop(Number(v))}
                  options={[10, 20, 50, 100].map((n) => ({ value: String(n), label: `Top ${n}` }))}
                />
              </div>
            </Flex>
            <Table.Root size="1" data-testid="fault-devices">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>#</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.device')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>SN</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.count')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.active')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('fault.duration')}</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {s.topDevices.length === 0 && (
                  <Table.Row>
                    <Table.Cell colSpan={6}>
                      <Text color="gray">{t('common.noData')}</Text>
                    </Table.Cell>
                  </Table.Row>
                )}
                {s.topDevices.map((d, i) => (
                  <Table.Row key={d.deviceId}>
                    <Table.Cell>{i + 1}</Table.Cell>
                    <Table.Cell>{d.deviceName ?? d.deviceId}</Table.Cell>
                    <Table.Cell>{d.sn ?? '-'}</Table.Cell>
                    <Table.Cell>{d.alarms}</Table.Cell>
                    <Table.Cell>
                      <Text color={d.active > 0 ? 'red' : undefined}>{d.active}</Text>
                    </Table.Cell>
                    <Table.Cell>{durationText(d.durationSeconds, lang)}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </Card>
        </>
      )}
    </Flex>
  );
}

export const RegionFaultPage = () => <FaultStatsPage view="region" />;
export const GarageFaultPage = () => <FaultStatsPage view="garage" />;
export const ProjectFaultPage = () => <FaultStatsPage view="project" />;
export const NationalFaultPage = () => <FaultStatsPage view="national" />;
