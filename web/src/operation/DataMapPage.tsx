import './i18n.ts';
import '../alarm/i18n.ts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Box, Button, Card, DataList, Flex, Heading, SegmentedControl, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import type { ECharts, EChartsOption } from 'echarts';
import { MAP_POINT_LIMIT, type MapPoint } from '@iot/contracts/operation/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { useAlarmFeed } from '../alarm/common.tsx';
import { formatCoordinate, formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { mapKindColours, mapKinds, mapPlane, type MapKind } from './mapPlane.ts';
import { useProvinces, type Province } from './provinces.ts';

const DATA_MAP = 'dataMap';
const ALL = '*';
const statuses = mapKinds;
type Kind = MapKind;
const kindColours = mapKindColours;
const kindOf = (p: MapPoint): Kind => (p.activeAlarms > 0 ? 'alarm' : p.status);

/** The scatter of devices over the outline, on a longitude/latitude plane that zooms and pans. */
function mapOption(
  points: MapPoint[],
  provinces: Province[] | null,
  names: Record<Kind, string>,
  style: { outlineName: string; provinceName: (name: string) => string },
): EChartsOption {
  // Wheel and drag zoom into a region.
  const plane = mapPlane(points, provinces, { ...style, outline: '#9DB5F5' });
  return {
    animation: false,
    grid: { left: 48, right: 24, top: 24, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => String((p as { data?: { name?: string } }).data?.name ?? '') },
    legend: { bottom: 0, data: statuses.map((k) => names[k]) },
    xAxis: plane.xAxis,
    yAxis: plane.yAxis,
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'none' },
      { type: 'inside', yAxisIndex: 0, filterMode: 'none' },
    ],
    series: [
      ...plane.outline,
      ...statuses.map((k) => ({
        type: 'scatter' as const,
        name: names[k],
        itemStyle: { color: kindColours[k] },
        symbolSize: k === 'alarm' ? 14 : 10,
        z: k === 'alarm' ? 4 : 3,
        data: points.filter((p) => kindOf(p) === k).map((p) => ({ value: [p.lng, p.lat], name: `${p.name} (${p.sn})`, id: p.id })),
      })),
    ],
  };
}

function MapChart({ option, onPick, count }: { option: EChartsOption; onPick: (id: string) => void; count: number }) {
  const { t } = useTranslation();
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const latest = useRef({ option, onPick });
  latest.current = { option, onPick };
  useEffect(() => {
    let disposed = false;
    void import('echarts').then((echarts) => {
      if (disposed || !el.current) return;
      chart.current = echarts.init(el.current);
      chart.current.setOption(latest.current.option);
      chart.current.on('click', (e) => {
        const id = (e.data as { id?: string } | undefined)?.id;
        if (id) latest.current.onPick(id);
      });
    });
    // The card beside the map narrows it: follow the element's size, not only the window's.
    const observer = new ResizeObserver(() => chart.current?.resize());
    if (el.current) observer.observe(el.current);
    return () => {
      disposed = true;
      observer.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);
  return (
    <div
      ref={el}
      style={{ width: '100%', height: 560 }}
      role="img"
      aria-label={t('dataMap.title')}
      data-count={count}
      data-testid="data-map"
    />
  );
}

/** The device's card: who it is, its alarms, its newest values. */
function DeviceCard({ point, onClose }: { point: MapPoint; onClose: () => void }) {
  const { t } = useTranslation();
  const latest = useQuery({
    queryKey: [DATA_MAP, 'latest', point.id],
    queryFn: () => callRoute('operation.dataMapLatest', { query: { id: point.id } }),
    refetchInterval: 15_000,
  });
  const kind = kindOf(point);
  return (
    <Card data-testid="map-card" style={{ width: 320, flexShrink: 0 }}>
      <Flex justify="between" align="center" mb="2">
        <Heading size="3">{point.name}</Heading>
        <Badge color={kind === 'alarm' ? 'red' : kind === 'online' ? 'green' : 'gray'}>{t(`dataMap.legend.${kind}`)}</Badge>
      </Flex>
      <DataList.Root size="1">
        {(
          [
            ['sn', point.sn],
            ['product', point.productName ?? '--'],
            ['group', point.groupName ?? '--'],
            ['address', point.address ?? '--'],
            ['coordinates', `${formatCoordinate(point.lng)}, ${formatCoordinate(point.lat)}`],
            ['lastReport', formatDate(point.lastReportAt, true)],
            ['alarms', String(point.activeAlarms)],
            ['alarmLevel', point.alarmLevel ? t(`alarm.levels.${point.alarmLevel}`) : '--'],
          ] as const
        ).map(([key, value]) => (
          <DataList.Item key={key}>
            <DataList.Label minWidth="80px">{t(`dataMap.card.${key}`)}</DataList.Label>
            <DataList.Value>{value}</DataList.Value>
          </DataList.Item>
        ))}
      </DataList.Root>
      <Heading size="2" mt="3" mb="1">
        {t('dataMap.card.latest')}
      </Heading>
      {latest.isError ? (
        <Text color="red" size="2" role="alert">
          {messageOf(latest.error)}
        </Text>
      ) : !latest.data ? (
        <Text color="gray" size="2">
          {t('common.loading')}
        </Text>
      ) : latest.data.length === 0 ? (
        <Text color="gray" size="2">
          {t('dataMap.card.noValues')}
        </Text>
      ) : (
        <DataList.Root size="1" data-testid="map-card-latest">
          {latest.data.map((v) => (
            <DataList.Item key={v.variable}>
              <DataList.Label minWidth="80px">{v.name ?? v.variable}</DataList.Label>
              <DataList.Value>{v.display}</DataList.Value>
            </DataList.Item>
          ))}
        </DataList.Root>
      )}
      <Button mt="3" variant="soft" color="gray" onClick={onClose}>
        {t('dataMap.card.close')}
      </Button>
    </Card>
  );
}

/**
 * The data map (issue 20): the devices of the caller's group subtree that have coordinates, on a longitude/latitude
 * plane over China's outline, coloured by online, offline and active alarm; a click opens the device's card. Alarm
 * changes refresh it over the alarm websocket, the status every 30 seconds.
 */
export function DataMapPage() {
  const { t } = useTranslation();
  const user = useSession();
  useAlarmFeed([DATA_MAP]);
  const [productId, setProductId] = useState(ALL);
  const [groupId, setGroupId] = useState(ALL);
  const [status, setStatus] = useState<Kind | typeof ALL>(ALL);
  const [picked, setPicked] = useState<string | null>(null);
  const products = useQuery({
    queryKey: [DATA_MAP, 'products'],
    enabled: can(user, devicePerm.productList),
    queryFn: async () => (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({ value: p.id, label: p.name })),
  });
  const groups = useQuery({
    queryKey: [DATA_MAP, 'groups'],
    enabled: can(user, perm.groupList),
    queryFn: async () => (await callRoute('group.list', { query: { pageSize: 500 } })).rows.map((g) => ({ value: g.id, label: g.name })),
  });
  const map = useQuery({
    queryKey: [DATA_MAP, productId, groupId, status],
    queryFn: () =>
      callRoute('operation.dataMap', {
        query: {
          productId: productId === ALL ? undefined : productId,
          groupId: groupId === ALL ? undefined : groupId,
          status: status === ALL ? undefined : status,
        },
      }),
    refetchInterval: 30_000,
  });
  const names = useMemo(() => Object.fromEntries(statuses.map((k) => [k, t(`dataMap.legend.${k}`)])) as Record<Kind, string>, [t]);
  const points = map.data?.points;
  const provinces = useProvinces();
  const option = useMemo(
    () => mapOption(points ?? [], provinces, names, { outlineName: t('dataMap.outline'), provinceName: (name) => t(`provinces.${name}`) }),
    [points, provinces, names, t],
  );
  const point = points?.find((p) => p.id === picked) ?? null;
  const all = { value: ALL, label: t('dataMap.all') };

  return (
    <Flex direction="column" gap="3" data-testid="data-map-page">
      <Flex gap="3" align="end" wrap="wrap">
        {products.data && (
          <Box width="200px">
            <Text as="label" size="1" color="gray">
              {t('dataMap.product')}
            </Text>
            <SelectInput name={t('dataMap.product')} value={productId} onChange={setProductId} options={[all, ...products.data]} />
          </Box>
        )}
        {groups.data && (
          <Box width="200px">
            <Text as="label" size="1" color="gray">
              {t('dataMap.group')}
            </Text>
            <SelectInput name={t('dataMap.group')} value={groupId} onChange={setGroupId} options={[all, ...groups.data]} />
          </Box>
        )}
        <SegmentedControl.Root value={status} onValueChange={(v) => setStatus(v as Kind | typeof ALL)} aria-label={t('dataMap.status')}>
          <SegmentedControl.Item value={ALL}>{t('dataMap.all')}</SegmentedControl.Item>
          {statuses.map((k) => (
            <SegmentedControl.Item key={k} value={k}>
              {t(`dataMap.statuses.${k}`)}
            </SegmentedControl.Item>
          ))}
        </SegmentedControl.Root>
      </Flex>
      {map.isError ? (
        <Text color="red" role="alert">
          {messageOf(map.error)}
        </Text>
      ) : !map.data ? (
        <Text color="gray">{t('common.loading')}</Text>
      ) : (
        <>
          <Flex gap="3" align="center" wrap="wrap">
            <Text size="2" color="gray" data-testid="map-summary">
              {t('dataMap.summary', { shown: map.data.points.length, total: map.data.total, unlocated: map.data.unlocated })}
            </Text>
            <Text size="1" color="gray">
              {t('dataMap.zoomHint')}
            </Text>
            {map.data.truncated && (
              <Text size="2" color="amber" role="status">
                {t('dataMap.truncated', { limit: MAP_POINT_LIMIT })}
              </Text>
            )}
          </Flex>
          {map.data.points.length === 0 && (
            <Card data-testid="map-empty">
              <Text as="div" weight="bold">
                {t('dataMap.empty')}
              </Text>
              <Text as="div" size="2" color="gray">
                {t('dataMap.emptyHint')}
              </Text>
            </Card>
          )}
          <Flex gap="3" align="start">
            <Box flexGrow="1" minWidth="0">
              <MapChart option={option} onPick={setPicked} count={map.data.points.length} />
            </Box>
            {point && <DeviceCard point={point} onClose={() => setPicked(null)} />}
          </Flex>
        </>
      )}
    </Flex>
  );
}
