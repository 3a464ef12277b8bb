import './faultI18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Card, Dialog, Flex, Heading, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import type { SiteKind, SiteRow } from '@iot/contracts/analysis/model.ts';
import { callRoute } from '../api/client.ts';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { RowButton, StatusBadge } from '../ui/widgets.tsx';
import { Chart, barOption } from './Chart.tsx';

type DeviceRow = Awaited<ReturnType<typeof callRoute<'device.list'>>>['rows'][number];
const listRoute = { project: 'analysis.projects', garage: 'analysis.garages' } as const;
const percent = (rate: number | null) => (rate === null ? '-' : `${Math.round(rate * 1000) / 10}%`);

/** The devices of a site's subtree, as the device list shows them. */
function SiteDevices({ site, onClose }: { site: SiteRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const columns: ListColumn<DeviceRow>[] = [
    { id: 'name', header: t('site.deviceName'), value: (d) => d.name },
    { id: 'sn', header: t('site.sn'), value: (d) => d.sn },
    { id: 'status', header: t('site.status'), value: (d) => d.status, cell: (d) => <StatusBadge value={d.status} /> },
    { id: 'lastReportAt', header: t('site.lastReport'), value: (d) => formatDate(d.lastReportAt, true) },
  ];
  return (
    <Dialog.Root open={site !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="900px">
        <Dialog.Title>
          {site?.name} · {t('site.deviceList')}
        </Dialog.Title>
        {site && (
          <ListPage<DeviceRow>
            queryKey="siteDevices"
            route="device.list"
            exportName={`${site.name}-${t('site.deviceList')}`}
            columns={columns}
            params={{ groupId: site.id }}
          />
        )}
        <Flex justify="end" mt="3">
          <Dialog.Close>
            <Button variant="soft" color="gray">
              {t('site.close')}
            </Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/**
 * Project or garage management (spec §2, §9 group types): the groups of that type in the caller's subtree with
 * their devices, online rate, active alarms and alarms in a range; each one's devices a click away.
 */
export function SitesPage({ kind }: { kind: SiteKind }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<SiteRow | null>(null);
  const ranked = useQuery({
    queryKey: ['sites', kind, 'ranked'],
    queryFn: () => callRoute(listRoute[kind], { query: { pageSize: 10, sort: 'activeAlarms', order: 'desc' } }),
  });
  const columns: ListColumn<SiteRow>[] = [
    { id: 'name', header: t('site.name'), value: (r) => r.name, sortable: true },
    { id: 'parentName', header: t('site.parent'), value: (r) => r.parentName ?? '-' },
    { id: 'location', header: t('site.location'), value: (r) => r.location ?? '-' },
    { id: 'devices', header: t('site.devices'), value: (r) => r.devices, sortable: true },
    { id: 'online', header: t('site.online'), value: (r) => r.online },
    { id: 'offline', header: t('site.offline'), value: (r) => r.offline },
    {
      id: 'onlineRate',
      header: t('site.onlineRate'),
      value: (r) => percent(r.onlineRate),
      cell: (r) => (
        <Badge color={r.onlineRate === null ? 'gray' : r.onlineRate >= 0.9 ? 'green' : r.onlineRate >= 0.5 ? 'amber' : 'red'}>
          {percent(r.onlineRate)}
        </Badge>
      ),
      sortable: true,
    },
    {
      id: 'activeAlarms',
      header: t('site.activeAlarms'),
      value: (r) => r.activeAlarms,
      cell: (r) => <Text color={r.activeAlarms > 0 ? 'red' : undefined}>{r.activeAlarms}</Text>,
      sortable: true,
    },
    { id: 'alarms', header: t('site.alarms'), value: (r) => r.alarms, sortable: true },
  ];
  const rows = ranked.data?.rows ?? [];
  return (
    <Flex direction="column" gap="3" data-testid={`sites-${kind}`}>
      {rows.length > 0 && (
        <Card>
          <Heading size="3" mb="2">
            {t('site.chart')}
          </Heading>
          <Chart
            option={{
              ...barOption(
                rows.map((r) => r.name),
                rows.map((r) => r.activeAlarms),
              ),
              legend: { top: 0 },
              yAxis: [
                { type: 'value', minInterval: 1 },
                { type: 'value', max: 100, axisLabel: { formatter: '{value}%' } },
              ],
              series: [
                { name: t('site.activeAlarms'), type: 'bar', data: rows.map((r) => r.activeAlarms), barMaxWidth: 36 },
                {
                  name: t('site.onlineRate'),
                  type: 'line',
                  yAxisIndex: 1,
                  data: rows.map((r) => (r.onlineRate === null ? null : Math.round(r.onlineRate * 1000) / 10)),
                },
              ],
            }}
            label={t('site.chart')}
            count={rows.length}
            height={240}
          />
        </Card>
      )}
      <ListPage<SiteRow>
        queryKey={`sites-${kind}`}
        route={listRoute[kind]}
        exportName={t(`site.${kind}`)}
        columns={columns}
        defaultSort={{ sort: 'name', order: 'asc' }}
        filters={[
          { name: 'name', label: t('site.name') },
          { name: 'from', label: t('site.from'), type: 'datetime' },
          { name: 'to', label: t('site.to'), type: 'datetime' },
        ]}
        rowActions={(r) => <RowButton label={t('site.view')} onClick={() => setOpen(r)} />}
      />
      <SiteDevices site={open} onClose={() => setOpen(null)} />
    </Flex>
  );
}

export const ProjectsPage = () => <SitesPage kind="project" />;
export const GaragesPage = () => <SitesPage kind="garage" />;
