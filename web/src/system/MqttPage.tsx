import './mqtt-i18n.ts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Card, Flex, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { mqttAdminPerm } from '@iot/contracts/system/mqtt.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { PermittedRowButton } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { EMPTY, formatDate } from '../ui/format.ts';

type Overview = Awaited<ReturnType<typeof callRoute<'mqttBroker.overview'>>>;
type ClientRow = Overview['clients'][number];
const KEY = 'mqttBroker';
/** The screen refreshes itself: clients come and go, rates move. */
const REFRESH_MS = 5_000;
/** Headers and short cells stay on one line; ids and topics break where they must. */
const wrapping = { whiteSpace: 'normal', wordBreak: 'break-all' } as const;

function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Flex direction="column" gap="1">
      <Text size="1" color="gray">
        {label}
      </Text>
      <Text size="3" weight="bold">
        {value}
      </Text>
    </Flex>
  );
}

/**
 * System management → MQTT (spec §2): the broker (embedded Aedes or an external one), its connected clients by
 * tenant with their subscriptions and messages, the message rate, and disconnecting a client after a confirm. A
 * tenant's administrator sees its own tenant's clients; the platform administrator every tenant's.
 */
export function MqttPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState('');
  const overview = useQuery({
    queryKey: [KEY, keyword],
    queryFn: () => callRoute('mqttBroker.overview', { query: keyword ? { keyword } : {} }),
    refetchInterval: REFRESH_MS,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: [KEY] });
  const disconnect = async (client: ClientRow) => {
    const ask = {
      message: t('mqttBroker.disconnectQuestion', { clientId: client.clientId }),
      danger: true,
      confirmLabel: t('mqttBroker.disconnect'),
    };
    if (!(await confirm(ask))) return;
    try {
      const { disconnected } = await callRoute('mqttBroker.disconnect', { body: { clientId: client.clientId } });
      if (disconnected) notice.success(t('mqttBroker.disconnected'));
      else notice.warning(t('mqttBroker.notConnected'));
    } catch (error) {
      notice.error(messageOf(error));
    }
    await refresh();
  };
  const data = overview.data;
  return (
    <Flex direction="column" gap="3">
      {data && (
        <Card>
          <Flex gap="6" wrap="wrap" align="start">
            <Figure label={t('mqttBroker.mode')} value={t(`mqttBroker.modes.${data.mode}`)} />
            <Figure label={t('mqttBroker.address')} value={data.address ? <code>{data.address}</code> : EMPTY} />
            <Figure
              label={t('mqttBroker.health')}
              value={
                <Badge color={data.healthy ? 'green' : 'red'} variant="soft">
                  {t(data.healthy ? 'mqttBroker.healthy' : 'mqttBroker.unhealthy')}
                </Badge>
              }
            />
            <Figure label={t('mqttBroker.clientsTotal')} value={data.listsClients ? data.clients.length : EMPTY} />
            <Figure label={t('mqttBroker.messagesIn')} value={data.listsClients ? data.rates.messagesIn : EMPTY} />
            <Figure
              label={t('mqttBroker.perSecond', { seconds: data.rates.windowSeconds })}
              value={data.listsClients ? t('mqttBroker.perSecondValue', { value: data.rates.perSecond }) : EMPTY}
            />
            {data.byTenant.length > 0 && (
              <Figure
                label={t('mqttBroker.byTenant')}
                value={
                  <Flex gap="1" wrap="wrap">
                    {data.byTenant.map((b) => (
                      <Badge key={b.tenantId} variant="soft" data-testid="mqtt-tenant">
                        {b.tenantId}: {b.clients}
                      </Badge>
                    ))}
                  </Flex>
                }
              />
            )}
          </Flex>
          {!data.listsClients && (
            <Text as="p" size="2" color="gray" mt="2">
              {t('mqttBroker.externalNote')}
            </Text>
          )}
        </Card>
      )}
      <Flex gap="3" align="end" wrap="wrap">
        <label>
          <Text as="div" size="2">
            {t('mqttBroker.keyword')}
          </Text>
          <TextField.Root
            name="keyword"
            style={{ width: 280 }}
            placeholder={t('mqttBroker.keywordHint')}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') setKeyword(typed.trim());
            }}
          />
        </label>
        <Button onClick={() => setKeyword(typed.trim())}>{t('mqttBroker.search')}</Button>
        <Button variant="soft" onClick={() => void refresh()}>
          {t('mqttBroker.refresh')}
        </Button>
      </Flex>
      {overview.isSuccess && data?.listsClients && data.clients.length === 0 ? (
        <Text color="gray">{t('mqttBroker.empty')}</Text>
      ) : (
        <Table.Root size="1" variant="surface" style={{ whiteSpace: 'nowrap' }}>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>{t('mqttBroker.clientId')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.kind')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.tenant')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.device')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.username')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.remote')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.connectedAt')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.messages')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('mqttBroker.subscriptions')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('common.actions')}</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {(data?.clients ?? []).map((c) => (
              <Table.Row key={c.clientId}>
                <Table.Cell style={wrapping}>
                  <code>{c.clientId}</code>
                </Table.Cell>
                <Table.Cell>{t(`mqttBroker.kinds.${c.kind}`)}</Table.Cell>
                <Table.Cell>{c.tenantId}</Table.Cell>
                <Table.Cell>{c.sn ? `${c.name ?? ''} (${c.sn})` : EMPTY}</Table.Cell>
                <Table.Cell>{c.username ?? EMPTY}</Table.Cell>
                <Table.Cell>{c.address ?? EMPTY}</Table.Cell>
                <Table.Cell>{c.connectedAt ? formatDate(c.connectedAt, true) : EMPTY}</Table.Cell>
                <Table.Cell>{c.messagesIn}</Table.Cell>
                <Table.Cell style={wrapping}>
                  {c.subscriptions.length === 0 ? (
                    <Text color="gray">{t('mqttBroker.noSubscriptions')}</Text>
                  ) : (
                    <Flex direction="column" gap="1">
                      {c.subscriptions.map((s) => (
                        <code key={s.topic}>
                          {s.topic} (QoS {s.qos})
                        </code>
                      ))}
                    </Flex>
                  )}
                </Table.Cell>
                <Table.Cell>
                  <PermittedRowButton
                    permission={mqttAdminPerm.disconnect}
                    label={t('mqttBroker.disconnect')}
                    danger
                    onClick={() => void disconnect(c)}
                  />
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
    </Flex>
  );
}
