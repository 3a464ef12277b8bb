import './i18n.ts';
import { useTranslation } from 'react-i18next';
import { Badge, Card, Code, DataList, Flex, Grid, Heading, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { callRoute } from '../api/client.ts';
import { Loading } from '../ui/Loading.tsx';

/**
 * Notification settings (spec §2): which channels this platform sends through and where, the storm caps,
 * retries and ticket reminders. They are the platform's configuration (environment variables, README);
 * credentials are never shown.
 */
export function NotifySettingsPage() {
  const { t } = useTranslation();
  const settings = useQuery({ queryKey: ['notifySettings'], queryFn: () => callRoute('notify.settings', {}) });
  if (!settings.data) return <Loading />;
  const s = settings.data;
  return (
    <Flex direction="column" gap="3">
      <Heading size="3">{t('notify.channels')}</Heading>
      <Grid columns={{ initial: '1', md: '3' }} gap="3" data-testid="notify-channels">
        {s.channels.map((c) => (
          <Card key={c.kind}>
            <Flex justify="between" align="center" mb="2">
              <Text weight="bold">{t(`notify.channelKinds.${c.kind}`)}</Text>
              <Badge color={c.configured ? 'green' : 'gray'}>{t(c.configured ? 'notify.configured' : 'notify.localOutboxOnly')}</Badge>
            </Flex>
            {c.target && (
              <Text as="div" size="2">
                {c.target}
              </Text>
            )}
            {c.variables.length > 0 && (
              <Text as="div" size="1" color="gray">
                {t('notify.configuredBy')}{' '}
                {c.variables.map((v) => (
                  <Code key={v} mr="1">
                    {v}
                  </Code>
                ))}
              </Text>
            )}
          </Card>
        ))}
      </Grid>
      <Card>
        <Heading size="3" mb="2">
          {t('notify.limits')}
        </Heading>
        <DataList.Root>
          <DataList.Item>
            <DataList.Label>{t('notify.tenantPerMinute')}</DataList.Label>
            <DataList.Value>{s.tenantPerMinute}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.contactPerMinute')}</DataList.Label>
            <DataList.Value>{s.contactPerMinute}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.retryPolicy')}</DataList.Label>
            <DataList.Value>{t('notify.retryEvery', { seconds: s.retryMs / 1000 })}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label>{t('notify.ticketReminder')}</DataList.Label>
            <DataList.Value>{t('notify.minutes', { minutes: s.ticketReminderMin })}</DataList.Value>
          </DataList.Item>
        </DataList.Root>
      </Card>
    </Flex>
  );
}
