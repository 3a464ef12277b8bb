import './i18n.ts';
import '../report/i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Code, Flex, Tabs, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { routes } from '@iot/contracts';
import { marketSharings, marketSourceKinds } from '@iot/contracts/market/model.ts';
import { marketPerm } from '@iot/contracts/market/permissions.ts';
import { reportCycles, reportFns } from '@iot/contracts/report/model.ts';
import { callRoute } from '../api/client.ts';
import { useSession } from '../auth/useSession.ts';
import { crudActions, labelled, PermittedRowButton, useListChange, useEachDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';

type DatasetRow = Awaited<ReturnType<typeof callRoute<'market.datasets'>>>['rows'][number];
type SubscriptionRow = Awaited<ReturnType<typeof callRoute<'market.subscriptions'>>>['rows'][number];
type SharedRow = Awaited<ReturnType<typeof callRoute<'market.shared'>>>['rows'][number];
/** A data set to subscribe an app to: the tenant's own, or one another tenant shares with it. */
type Subscribable = { id: string; name: string; publisherTenantId?: string };
const DATASETS = 'marketDatasets';
const SHARED = 'marketShared';
const SUBSCRIPTIONS = 'marketSubscriptions';

const empty = {
  id: '',
  name: '',
  kind: 'deviceData',
  groupId: '',
  variables: '',
  fn: 'avg',
  cycle: '1h',
  taskId: '',
  reportId: '',
  windowDays: '7',
  description: '',
  sharing: 'internal',
  /** Tenant ids, comma-separated. */
  sharedWith: '',
};
type Values = typeof empty;
const listOf = (text: string) =>
  text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const valuesOf = (e: DatasetRow | 'new' | null): Values => {
  if (!e || e === 'new') return empty;
  const s = e.source;
  return {
    ...empty,
    id: e.id,
    name: e.name,
    kind: s.kind,
    windowDays: String(e.windowDays),
    description: e.description ?? '',
    sharing: e.sharing,
    sharedWith: e.sharedWith.join(','),
    ...(s.kind === 'deviceData' ? { groupId: s.groupId, variables: s.variables.join(','), fn: s.fn, cycle: s.cycle } : {}),
    ...(s.kind === 'statResult' ? { taskId: s.taskId } : {}),
    ...(s.kind === 'report' ? { reportId: s.reportId } : {}),
  };
};

function sourceOf(v: Values) {
  if (v.kind === 'statResult') return { kind: 'statResult', taskId: v.taskId };
  if (v.kind === 'report') return { kind: 'report', reportId: v.reportId };
  return { kind: 'deviceData', groupId: v.groupId, variables: listOf(v.variables), fn: v.fn, cycle: v.cycle };
}

function DatasetDialog({ editing, onClose }: { editing: DatasetRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog({ editing, empty, queryKey: DATASETS, onClose, valuesOf });
  const v = form.values;
  const options = useQuery({
    queryKey: ['market', 'options'],
    enabled: editing !== null,
    queryFn: async () => ({
      groups: (await callRoute('group.list', { query: { pageSize: 500 } })).rows.map((g) => ({ value: g.id, label: g.name })),
      tasks: (await callRoute('statTask.list', { query: { pageSize: 200 } })).rows.map((x) => ({ value: x.id, label: x.name })),
      reports: (await callRoute('report.list', { query: { pageSize: 200 } })).rows.map((x) => ({ value: x.id, label: x.name })),
    }),
  });
  const submit = async () => {
    const body = {
      name: v.name,
      source: sourceOf(v),
      windowDays: Number(v.windowDays),
      description: v.description === '' ? null : v.description,
      sharing: v.sharing,
      sharedWith: v.sharing === 'chosen' ? listOf(v.sharedWith) : [],
    };
    const checked = creating ? checkBody('market.publish', body, t) : checkBody('market.update', { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const select = (key: keyof Values, label: string, list: Array<{ value: string; label: string }>) => (
    <Field label={label} required error={form.errors[key] ?? form.errors[`source.${key}`]}>
      <SelectInput name={key} value={v[key]} onChange={(x) => form.set(key, x)} options={list} />
    </Field>
  );
  const text = (key: keyof Values, label: string, required = false) => (
    <Field label={label} required={required} error={form.errors[key] ?? form.errors[`source.${key}`]}>
      <TextField.Root name={key} value={v[key]} onChange={(e) => form.set(key, e.target.value)} />
    </Field>
  );
  return (
    <FormDialog
      {...dialog}
      width="600px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.dataset') })}
      onSubmit={() => void submit()}
    >
      {text('name', t('market.name'), true)}
      {select('kind', t('market.kind'), labelled(t, 'market.kinds', marketSourceKinds))}
      {v.kind === 'deviceData' && (
        <>
          {select('groupId', t('market.group'), options.data?.groups ?? [])}
          {text('variables', t('market.variables'), true)}
          {select('fn', t('market.fn'), labelled(t, 'report.fns', reportFns))}
          {select('cycle', t('market.cycle'), labelled(t, 'report.cycles', reportCycles))}
        </>
      )}
      {v.kind === 'statResult' && select('taskId', t('market.task'), options.data?.tasks ?? [])}
      {v.kind === 'report' && select('reportId', t('market.report'), options.data?.reports ?? [])}
      {text('windowDays', t('market.windowDays'), true)}
      {text('description', t('market.description'))}
      {select('sharing', t('market.sharing'), labelled(t, 'market.sharings', marketSharings))}
      {v.sharing === 'chosen' && text('sharedWith', t('market.sharedWith'), true)}
      <Text size="1" color="gray">
        {t(`market.sharingHints.${v.sharing}`)}
      </Text>
    </FormDialog>
  );
}

function SubscribeDialog({ dataset, onClose }: { dataset: Subscribable | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { form, run, done, dialog } = useRecordDialog({
    editing: dataset,
    empty: { appId: '' },
    queryKey: SUBSCRIPTIONS,
    onClose,
    valuesOf: () => ({ appId: '' }),
  });
  const apps = useQuery({
    queryKey: ['apps', 'options'],
    enabled: dataset !== null,
    queryFn: async () => (await callRoute('app.list', { query: { pageSize: 200 } })).rows.map((a) => ({ value: a.id, label: a.name })),
  });
  const submit = async () => {
    const publisher = dataset?.publisherTenantId ? { publisherTenantId: dataset.publisherTenantId } : {};
    const checked = checkBody('market.subscribe', { datasetId: dataset?.id ?? '', appId: form.values.appId, ...publisher }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute('market.subscribe', { body: checked.data });
      await done(t('market.subscribed'));
    });
  };
  return (
    <FormDialog {...dialog} title={`${t('market.subscribe')}: ${dataset?.name ?? ''}`} onSubmit={() => void submit()}>
      <Field label={t('market.app')} required error={form.errors.appId}>
        <SelectInput name="appId" value={form.values.appId} onChange={(x) => form.set('appId', x)} options={apps.data ?? []} />
      </Field>
    </FormDialog>
  );
}

/** The data market (issue 20): data sets published as read-only endpoints, the tenant's apps subscribed, calls counted, revocable. */
export function MarketPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<DatasetRow | 'new' | null>(null);
  const [subscribing, setSubscribing] = useState<Subscribable | null>(null);
  const me = useSession();
  const deleteRows = useEachDelete<DatasetRow>(DATASETS, 'market.withdraw', t('objects.dataset'), (r) => r.name);
  const change = useListChange(SUBSCRIPTIONS);
  const datasetColumns: ListColumn<DatasetRow>[] = [
    { id: 'name', header: t('market.name'), value: (r) => r.name, sortable: true, width: 180 },
    { id: 'kind', header: t('market.kind'), value: (r) => t(`market.kinds.${r.source.kind}`), width: 160 },
    { id: 'windowDays', header: t('market.windowDays'), value: (r) => r.windowDays, width: 110 },
    {
      id: 'sharing',
      header: t('market.sharing'),
      value: (r) => `${t(`market.sharings.${r.sharing}`)}${r.sharing === 'chosen' ? `: ${r.sharedWith.join(', ')}` : ''}`,
      width: 160,
    },
    { id: 'subscribers', header: t('market.subscribers'), value: (r) => r.subscribers, width: 90 },
    { id: 'description', header: t('market.description'), value: (r) => r.description, width: 200 },
    { id: 'createTime', header: t('market.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  const subscriptionColumns: ListColumn<SubscriptionRow>[] = [
    { id: 'dataset', header: t('market.dataset'), value: (r) => r.datasetName ?? r.datasetId, width: 180 },
    { id: 'app', header: t('market.app'), value: (r) => r.appName ?? r.appId, width: 160 },
    // Another tenant's app subscribed to one of ours, or ours to another tenant's data set.
    {
      id: 'tenant',
      header: t('market.otherTenant'),
      value: (r) =>
        r.subscriberTenantId !== me?.tenantId ? r.subscriberTenantId : r.publisherTenantId !== me?.tenantId ? r.publisherTenantId : '',
      width: 120,
    },
    {
      id: 'status',
      header: t('market.status'),
      value: (r) => t(`market.statuses.${r.status}`),
      cell: (r) => (
        <Badge color={r.status === 'active' ? 'green' : 'gray'} variant="soft">
          {t(`market.statuses.${r.status}`)}
        </Badge>
      ),
      width: 90,
    },
    { id: 'calls', header: t('market.calls'), value: (r) => r.calls, width: 90 },
    { id: 'lastCall', header: t('market.lastCall'), value: (r) => (r.lastCallTime ? formatDate(r.lastCallTime, true) : '--'), width: 160 },
    { id: 'createTime', header: t('market.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  const sharedColumns: ListColumn<SharedRow>[] = [
    { id: 'name', header: t('market.name'), value: (r) => r.name, sortable: true, width: 180 },
    { id: 'publisher', header: t('market.publisher'), value: (r) => r.publisherName ?? r.publisherTenantId, width: 160 },
    { id: 'kind', header: t('market.kind'), value: (r) => t(`market.kinds.${r.sourceKind}`), width: 160 },
    { id: 'windowDays', header: t('market.windowDays'), value: (r) => r.windowDays, width: 110 },
    { id: 'sharing', header: t('market.sharing'), value: (r) => t(`market.sharings.${r.sharing}`), width: 120 },
    { id: 'description', header: t('market.description'), value: (r) => r.description, width: 200 },
    { id: 'createTime', header: t('market.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  const revoke = (r: SubscriptionRow) =>
    void change(() => callRoute('market.revoke', { body: { id: r.id } }), t('market.revoked'), {
      message: t('market.revokeQuestion', { app: r.appName ?? r.appId, dataset: r.datasetName ?? r.datasetId }),
      danger: true,
    });
  return (
    <Tabs.Root defaultValue="datasets">
      <Tabs.List>
        <Tabs.Trigger value="datasets">{t('market.datasets')}</Tabs.Trigger>
        <Tabs.Trigger value="shared">{t('market.shared')}</Tabs.Trigger>
        <Tabs.Trigger value="subscriptions">{t('market.subscriptions')}</Tabs.Trigger>
      </Tabs.List>
      <Tabs.Content value="datasets">
        <Flex direction="column" gap="2" mt="3">
          <Text size="1" color="gray">
            {t('market.endpoint')}: <Code>{routes['market.data'].path}</Code> — {t('market.endpointHint', { perm: marketPerm.data })}
          </Text>
          <ListPage<DatasetRow>
            queryKey={DATASETS}
            route="market.datasets"
            exportName={t('objects.dataset')}
            columns={datasetColumns}
            defaultSort={{ sort: 'createTime', order: 'desc' }}
            filters={[{ name: 'name', label: t('market.name') }]}
            rowActions={(r) => (
              <PermittedRowButton permission={marketPerm.subscribe} label={t('market.subscribe')} onClick={() => setSubscribing(r)} />
            )}
            actions={crudActions<DatasetRow>(
              t,
              { add: marketPerm.add, edit: marketPerm.edit, delete: marketPerm.delete },
              {
                add: () => setEditing('new'),
                edit: setEditing,
                remove: deleteRows,
              },
            )}
          />
        </Flex>
      </Tabs.Content>
      <Tabs.Content value="shared">
        <Flex direction="column" gap="2" mt="3">
          <Text size="1" color="gray">
            {t('market.sharedHint')}
          </Text>
          <ListPage<SharedRow>
            queryKey={SHARED}
            route="market.shared"
            exportName={t('market.shared')}
            columns={sharedColumns}
            defaultSort={{ sort: 'createTime', order: 'desc' }}
            filters={[{ name: 'name', label: t('market.name') }]}
            rowActions={(r) => (
              <PermittedRowButton
                permission={marketPerm.subscribe}
                label={t('market.subscribe')}
                onClick={() => setSubscribing({ id: r.id, name: r.name, publisherTenantId: r.publisherTenantId })}
              />
            )}
          />
        </Flex>
      </Tabs.Content>
      <Tabs.Content value="subscriptions">
        <Flex direction="column" gap="2" mt="3">
          <ListPage<SubscriptionRow>
            queryKey={SUBSCRIPTIONS}
            route="market.subscriptions"
            exportName={t('objects.subscription')}
            columns={subscriptionColumns}
            defaultSort={{ sort: 'createTime', order: 'desc' }}
            filters={[
              { name: 'status', label: t('market.status'), type: 'select', options: labelled(t, 'market.statuses', ['active', 'revoked']) },
            ]}
            rowActions={(r) =>
              // A subscription is revoked by the tenant whose app holds it; a publisher ends others' by sharing less.
              r.status === 'active' && r.subscriberTenantId === me?.tenantId ? (
                <PermittedRowButton permission={marketPerm.revoke} label={t('market.revoke')} danger onClick={() => revoke(r)} />
              ) : null
            }
          />
        </Flex>
      </Tabs.Content>
      <DatasetDialog editing={editing} onClose={() => setEditing(null)} />
      <SubscribeDialog dataset={subscribing} onClose={() => setSubscribing(null)} />
    </Tabs.Root>
  );
}
