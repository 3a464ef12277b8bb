import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Card, Flex, Grid, Heading, Table, Text } from '@radix-ui/themes';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { alarmPerm } from '@iot/contracts/alarm/permissions.ts';
import { useNavigate } from 'react-router';
import '../alarm/i18n.ts';
import { LevelBadge } from '../alarm/common.tsx';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { formatDate } from '../ui/format.ts';
import { useLogNames } from '../system/logNames.ts';

const zhCards = {
  users: '用户',
  groups: '分组',
  roles: '角色',
  pending: '待审核租户',
  devices: '设备',
  online: '在线设备',
  offline: '离线设备',
  recent: '最近操作',
};
const enCards: typeof zhCards = {
  users: 'Users',
  groups: 'Groups',
  roles: 'Roles',
  pending: 'Pending registrations',
  devices: 'Devices',
  online: 'Online devices',
  offline: 'Offline devices',
  recent: 'Recent operations',
};

/**
 * The home page's overview (issue 9 "home page"): counts a user may see, and the tenant's latest operations.
 * Each card reads only what the user's permissions allow, so a home page never sends anyone to login.
 * `withAlarms`: the active alarms by level, unless the dashboard below shows them.
 */
export function Overview({ withAlarms = true }: { withAlarms?: boolean }) {
  const { i18n, t } = useTranslation();
  const names = useLogNames();
  const me = useSession();
  const label = (k: keyof typeof zhCards) => (i18n.language === 'en' ? enCards : zhCards)[k];
  const quiet = { noRedirect: true };
  const counts = useQuery({
    queryKey: ['home', 'overview', me?.id],
    queryFn: async () => {
      const total = async (allowed: boolean, load: () => Promise<{ total: number }>) =>
        allowed ? ((await load().catch(() => null))?.total ?? null) : null;
      const [users, groups, roles, pending, devices] = await Promise.all([
        total(can(me, perm.userList), () => callRoute('user.list', { query: { pageSize: 1 } }, quiet)),
        total(can(me, perm.groupList), () => callRoute('group.list', { query: { pageSize: 1 } }, quiet)),
        total(can(me, perm.roleList), () => callRoute('role.list', { query: { pageSize: 1 } }, quiet)),
        total(can(me, perm.tenantList), () => callRoute('tenant.list', { query: { pageSize: 1, status: 'underReview' } }, quiet)),
        can(me, devicePerm.deviceList) ? callRoute('device.count', {}, quiet).catch(() => null) : Promise.resolve(null),
      ]);
      return { users, groups, roles, pending, devices };
    },
  });
  const recent = useQuery({
    queryKey: ['home', 'recent', me?.id],
    queryFn: () => callRoute('oplog.list', { query: { pageSize: 8 } }, quiet),
    enabled: can(me, perm.logList),
  });
  const navigate = useNavigate();
  const alarms = useQuery({
    queryKey: ['home', 'alarms', me?.id],
    queryFn: () => callRoute('alarm.counts', {}, quiet),
    enabled: withAlarms && can(me, alarmPerm.alarmList),
    refetchInterval: 30_000,
  });
  const c = counts.data;
  const cards = c
    ? (
        [
          ['devices', c.devices?.total],
          ['online', c.devices?.online],
          ['offline', c.devices?.offline],
          ['users', c.users],
          ['groups', c.groups],
          ['roles', c.roles],
          ['pending', c.pending],
        ] as const
      ).filter(([, n]) => n !== null && n !== undefined)
    : [];
  return (
    <Flex direction="column" gap="3">
      {counts.isLoading && <Text color="gray">{t('common.loading')}</Text>}
      {cards.length > 0 && (
        <Grid columns={{ initial: '2', md: String(Math.min(cards.length, 7)) }} gap="3" data-testid="overview">
          {cards.map(([k, n]) => (
            <Card key={k}>
              <Text as="div" size="1" color="gray">
                {label(k)}
              </Text>
              <Text as="div" size="6" weight="bold" color={k === 'online' ? 'green' : undefined}>
                {n}
              </Text>
            </Card>
          ))}
        </Grid>
      )}
      {withAlarms && alarms.data && (
        <Card data-testid="alarm-levels" onClick={() => void navigate('/alarm/monitor')} style={{ cursor: 'pointer' }}>
          <Flex justify="between" mb="2">
            <Heading size="3">{t('alarm.byLevel')}</Heading>
            <Text size="2" color="amber">
              {t('alarm.unprocessed')}: {alarms.data.unprocessed}
            </Text>
          </Flex>
          <div className="alarm-levels">
            {alarms.data.byLevel.map((l) => (
              <Flex key={l.level} direction="column" gap="1" align="start">
                <LevelBadge level={l.level} />
                <Text size="6" weight="bold" color={l.count > 0 && l.level >= 4 ? 'red' : undefined}>
                  {l.count}
                </Text>
              </Flex>
            ))}
          </div>
        </Card>
      )}
      {recent.data && (
        <Card>
          <Heading size="3" mb="2">
            {label('recent')}
          </Heading>
          {recent.data.rows.length === 0 ? (
            <Text color="gray">{t('common.noData')}</Text>
          ) : (
            <Table.Root size="1">
              <Table.Body>
                {recent.data.rows.map((r) => (
                  <Table.Row key={r.position}>
                    <Table.Cell>{formatDate(r.occurredAt, true)}</Table.Cell>
                    <Table.Cell>{names.actorOf(r)}</Table.Cell>
                    <Table.Cell>{i18n.exists(`event.${r.eventType}`) ? t(`event.${r.eventType}`) : r.eventType}</Table.Cell>
                    <Table.Cell>{r.targetName ? names.targetOf(r).name : ''}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          )}
        </Card>
      )}
    </Flex>
  );
}
