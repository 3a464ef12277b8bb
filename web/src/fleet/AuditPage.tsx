import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Flex, Grid, Heading, Text } from '@radix-ui/themes';
import type { OplogRow } from '@iot/contracts/identity/oplog.ts';
import { useLogNames } from '../system/logNames.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { Field } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

const entityTypes = ['device', 'product', 'template', 'mqttconfig', 'user', 'role', 'group', 'menu', 'app', 'dict', 'settings', 'tenant'];

/** The tenant as it was at an instant: counts as cards, names below (issue 10 "History for auditors"). */
function TenantAsOf() {
  const { t } = useTranslation();
  const [at, setAt] = useState('');
  const [state, setState] = useState<Awaited<ReturnType<typeof callRoute<'audit.tenantAsOf'>>> | null>(null);
  const look = async () => {
    try {
      setState(await callRoute('audit.tenantAsOf', { query: { at: new Date(at).toISOString() } }));
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  const cards = state
    ? ([
        ['users', state.users],
        ['roles', state.roles],
        ['groups', state.groups],
        ['products', state.products],
        ['devices', state.devices],
        ['enabledDevices', state.enabledDevices],
      ] as const)
    : [];
  return (
    <Card mb="4">
      <Heading size="3" mb="2">
        {t('fleet.tenantAsOf')}
      </Heading>
      <Flex gap="2" align="end" mb="3">
        <Field label={t('fleet.asOfAt')}>
          <DateTimeInput seconds value={at} onChange={setAt} aria-label={t('fleet.asOfAt')} />
        </Field>
        <Button onClick={() => void look()} disabled={!at}>
          {t('fleet.show')}
        </Button>
        {state && (
          <Text size="2" color="gray">
            {formatDate(state.at, true)} · {state.events}
          </Text>
        )}
      </Flex>
      {state && (
        <Grid columns={{ initial: '2', md: '6' }} gap="3" data-testid="tenant-as-of">
          {cards.map(([k, n]) => (
            <Card key={k}>
              <Text as="div" size="1" color="gray">
                {t(`fleet.${k}`)}
              </Text>
              <Text as="div" size="6" weight="bold">
                {n}
              </Text>
            </Card>
          ))}
        </Grid>
      )}
    </Card>
  );
}

/** Who changed what in the tenant, filtered by actor, entity type, entity and action; exportable. */
export function AuditPage() {
  const { t, i18n } = useTranslation();
  const eventName = (type: string) => (i18n.exists(`event.${type}`) ? t(`event.${type}`) : type);
  const { actorOf, targetOf } = useLogNames();
  const kindName = (kind: string) => (i18n.exists(`log.stream.${kind}`) ? t(`log.stream.${kind}`) : kind);
  const columns: ListColumn<OplogRow>[] = [
    { id: 'occurredAt', header: t('fleet.time'), value: (r) => formatDate(r.occurredAt, true), sortable: true, width: 160 },
    { id: 'actorId', header: t('fleet.actor'), value: (r) => actorOf(r), sortable: true, width: 130 },
    { id: 'eventType', header: t('fleet.action'), value: (r) => eventName(r.eventType), sortable: true, width: 190 },
    { id: 'entityType', header: t('fleet.entityType'), value: (r) => kindName(targetOf(r).kind), width: 110 },
    {
      id: 'entity',
      header: t('fleet.entity'),
      value: (r) => (r.targetName ? targetOf(r).name : r.stream.slice(r.stream.indexOf('.') + 1)),
      width: 220,
    },
    { id: 'ip', header: 'IP', value: (r) => r.ip, width: 120 },
  ];
  return (
    <>
      <TenantAsOf />
      <ListPage<OplogRow>
        queryKey="audit"
        route="audit.list"
        exportName={t('fleet.audit')}
        rowId={(r) => r.position}
        selectable={false}
        columns={columns}
        defaultSort={{ sort: 'occurredAt', order: 'desc' }}
        filters={[
          { name: 'actor', label: t('fleet.actor') },
          {
            name: 'entityType',
            label: t('fleet.entityType'),
            type: 'select',
            options: entityTypes.map((v) => ({ value: v, label: kindName(v) })),
          },
          { name: 'entity', label: t('fleet.entity') },
          { name: 'eventType', label: t('fleet.action') },
          { name: 'from', label: t('fleet.from'), type: 'datetime' },
          { name: 'to', label: t('fleet.to'), type: 'datetime' },
        ]}
      />
    </>
  );
}
