import './faultI18n.ts';
import '../alarm/i18n.ts';
import { useTranslation } from 'react-i18next';
import { Badge, Card, Flex, Grid, Heading, Table, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { Dashboard as DashboardData } from '@iot/contracts/analysis/model.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { LevelBadge, useAlarmFeed } from '../alarm/common.tsx';
import { formatDate } from '../ui/format.ts';
import { Chart, barOption, pieOption } from './Chart.tsx';

const DASHBOARD = 'dashboard';
const LEVEL_COLOURS = ['#8B8D98', '#2E68EA', '#FFC53D', '#F76B15', '#E5484D'];

/**
 * The home dashboard (issue 20) for the caller's group subtree: devices, active alarms by level, today's data
 * points and ingest rate, the latest alarms. Alarms refresh it live (the `alarm.live` feed); the counts of
 * devices and samples, which no feed carries, every 15 seconds.
 */
export function Dashboard() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  useAlarmFeed([DASHBOARD]);
  const board = useQuery({
    queryKey: [DASHBOARD],
    queryFn: () =>
      callRoute('analysis.dashboard', { query: { timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone } }, { noRedirect: true }),
    refetchInterval: 15_000,
  });
  if (board.isError)
    return (
      <Text color="red" role="alert">
        {messageOf(board.error)}
      </Text>
    );
  const d: DashboardData | undefined = board.data;
  if (!d) return <Text color="gray">{t('common.loading')}</Text>;
  const card = (label: string, value: string | number, testId: string, colour?: 'red' | 'green' | 'amber') => (
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
    <Flex direction="column" gap="3" data-testid="dashboard">
      <Flex justify="between" align="center">
        <Heading size="3">{t('dashboard.title')}</Heading>
        <Text size="1" color="gray">
          <Badge color="green" variant="soft" mr="2">
            {t('dashboard.live')}
          </Badge>
          {t('dashboard.updated')} {formatDate(d.at, true)}
        </Text>
      </Flex>
      <Grid columns={{ initial: '2', md: '6' }} gap="3">
        {card(t('dashboard.devices'), d.devices.total, 'dash-devices')}
        {card(t('dashboard.online'), d.devices.online, 'dash-online', 'green')}
        {card(t('dashboard.offline'), d.devices.offline, 'dash-offline')}
        {card(t('dashboard.activeAlarms'), d.alarms.active, 'dash-alarms', d.alarms.active > 0 ? 'red' : undefined)}
        {card(t('dashboard.dataPoints'), d.dataPoints.today.toLocaleString(), 'dash-points')}
        {card(t('dashboard.ingestRate'), d.dataPoints.perSecond, 'dash-rate')}
      </Grid>
      <Grid columns={{ initial: '1', md: '3' }} gap="3">
        <Card>
          <Heading size="2" mb="2">
            {t('dashboard.deviceStatus')}
          </Heading>
          <Chart
            label={t('dashboard.deviceStatus')}
            count={3}
            height={220}
            option={pieOption(
              [
                { name: t('dashboard.online'), value: d.devices.online },
                { name: t('dashboard.offline'), value: d.devices.offline },
                { name: t('dashboard.disabled'), value: d.devices.disabled },
              ],
              ['#30A46C', '#8B8D98', '#E5484D'],
            )}
          />
        </Card>
        <Card onClick={() => void navigate('/alarm/monitor')} style={{ cursor: 'pointer' }}>
          <Flex justify="between" mb="2">
            <Heading size="2">{t('dashboard.alarmLevels')}</Heading>
            <Text size="1" color="amber">
              {t('dashboard.unprocessed')}: {d.alarms.unprocessed} · {t('dashboard.todayAlarms')}: {d.alarms.today}
            </Text>
          </Flex>
          <Chart
            label={t('dashboard.alarmLevels')}
            count={5}
            height={220}
            option={{
              ...barOption(
                d.alarms.byLevel.map((l) => t(`alarm.levels.${l.level}`)),
                d.alarms.byLevel.map((l) => l.count),
              ),
              series: [
                {
                  type: 'bar',
                  barMaxWidth: 32,
                  data: d.alarms.byLevel.map((l, i) => ({ value: l.count, itemStyle: { color: LEVEL_COLOURS[i] } })),
                },
              ],
            }}
          />
        </Card>
        <Card>
          <Heading size="2" mb="2">
            {t('dashboard.recentAlarms')}
          </Heading>
          {d.recentAlarms.length === 0 ? (
            <Text color="gray">{t('dashboard.noAlarms')}</Text>
          ) : (
            <Table.Root size="1" data-testid="dash-recent">
              <Table.Body>
                {d.recentAlarms.map((a) => (
                  <Table.Row key={a.id}>
                    <Table.Cell>
                      <LevelBadge level={a.level} />
                    </Table.Cell>
                    <Table.Cell>{a.deviceName ?? a.sn ?? a.deviceId}</Table.Cell>
                    <Table.Cell>
                      <Text color={a.status === 'active' ? 'red' : 'gray'}>{t(`alarm.${a.status}`)}</Text>
                    </Table.Cell>
                    <Table.Cell>{formatDate(a.raisedAt, true)}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          )}
        </Card>
      </Grid>
    </Flex>
  );
}
