import './i18n.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Dialog, Flex, Progress, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { statCycles, statDataTypes, statTypes } from '@iot/contracts/constants.ts';
import { thingFunction } from '@iot/contracts/device/thing-model.ts';
import { statDimensions, type StatBackfillFeed } from '@iot/contracts/stat/model.ts';
import { statPerm } from '@iot/contracts/stat/permissions.ts';
import { callRoute, channelUrl } from '../api/client.ts';
import { crudActions, labelled, PermittedRowButton, statusColumn, useListChange, useEachDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

type TaskRow = Awaited<ReturnType<typeof callRoute<'statTask.list'>>>['rows'][number];
const TASKS = 'statTasks';
/** The select's value for "every product" (a select item cannot be empty). */
const ALL = '*';

const empty = {
  id: '',
  name: '',
  dataType: 'deviceData',
  productId: ALL,
  attribute: '',
  statType: 'avg',
  cycle: '1h',
  dimension: 'device',
  exclusion: 'none',
  min: '',
  max: '',
  sigma: '3',
  timeZone: 'Asia/Shanghai',
  remark: '',
};
type Values = typeof empty;

const valuesOf = (e: TaskRow | 'new' | null): Values =>
  e && e !== 'new'
    ? {
        id: e.id,
        name: e.name,
        dataType: e.dataType,
        productId: e.productId ?? ALL,
        attribute: e.attribute,
        statType: e.statType,
        cycle: e.cycle,
        dimension: e.dimension,
        exclusion: e.exclusion.mode,
        min: e.exclusion.mode === 'range' ? String(e.exclusion.min) : '',
        max: e.exclusion.mode === 'range' ? String(e.exclusion.max) : '',
        sigma: e.exclusion.mode === 'stdDev' ? String(e.exclusion.sigma) : '3',
        timeZone: e.timeZone,
        remark: e.remark ?? '',
      }
    : empty;

function exclusionOf(v: Values) {
  if (v.exclusion === 'range')
    return { mode: 'range', min: v.min === '' ? Number.NaN : Number(v.min), max: v.max === '' ? Number.NaN : Number(v.max) };
  if (v.exclusion === 'stdDev') return { mode: 'stdDev', sigma: Number(v.sigma) };
  return { mode: 'none' };
}

function TaskDialog({ editing, onClose }: { editing: TaskRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const products = useQuery({
    queryKey: ['products', 'options'],
    queryFn: async () =>
      (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({ value: p.id, label: `${p.name} (${p.code})` })),
  });
  const { form, run, done, dialog } = useRecordDialog({ editing, empty, queryKey: TASKS, onClose, valuesOf });
  const v = form.values;
  // The chosen product's properties, to pick the attribute by name; every product's: typed by identifier.
  const properties = useQuery({
    queryKey: ['product', v.productId, 'properties'],
    enabled: v.productId !== ALL && v.dataType !== 'alarm',
    queryFn: async () =>
      (await callRoute('product.detail', { query: { id: v.productId } })).functions.flatMap((raw) => {
        const f = thingFunction.safeParse(raw);
        return f.success && f.data.type === 'property'
          ? [{ value: f.data.identifier, label: `${f.data.name} (${f.data.identifier})` }]
          : [];
      }),
  });
  const submit = async () => {
    const body = {
      name: v.name,
      dataType: v.dataType,
      productId: v.productId === ALL ? null : v.productId,
      attribute: v.attribute,
      statType: v.statType,
      cycle: v.cycle,
      dimension: v.dimension,
      exclusion: exclusionOf(v),
      timeZone: v.timeZone,
      remark: v.remark === '' ? null : v.remark,
    };
    const checked = creating ? checkBody('statTask.create', body, t) : checkBody('statTask.update', { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const select = (key: keyof Values, label: string, options: Array<{ value: string; label: string }>, required = true) => (
    <Field label={label} required={required} error={form.errors[key]}>
      <SelectInput name={key} value={v[key]} onChange={(x) => form.set(key, x)} options={options} />
    </Field>
  );
  const text = (key: keyof Values, label: string, required = false) => (
    <Field label={label} required={required} error={form.errors[key]}>
      <TextField.Root name={key} value={v[key]} onChange={(e) => form.set(key, e.target.value)} />
    </Field>
  );
  return (
    <FormDialog
      {...dialog}
      width="640px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.statTask') })}
      onSubmit={() => void submit()}
    >
      {text('name', t('stat.name'), true)}
      {select('dataType', t('stat.dataType'), labelled(t, 'stat.dataTypes', statDataTypes))}
      {select('productId', t('stat.product'), [{ value: ALL, label: t('stat.allProducts') }, ...(products.data ?? [])], false)}
      {properties.data && properties.data.length > 0
        ? select(
            'attribute',
            t('stat.attribute'),
            properties.data.some((o) => o.value === v.attribute) || v.attribute === ''
              ? properties.data
              : [...properties.data, { value: v.attribute, label: v.attribute }],
          )
        : text('attribute', t('stat.attribute'), true)}
      {select('statType', t('stat.statType'), labelled(t, 'stat.statTypes', statTypes))}
      {select('cycle', t('stat.cycle'), labelled(t, 'stat.cycles', statCycles))}
      {select('dimension', t('stat.dimension'), labelled(t, 'stat.dimensions', statDimensions))}
      {select('exclusion', t('stat.exclusion'), labelled(t, 'stat.exclusions', ['none', 'range', 'stdDev']))}
      <Text size="1" color="gray">
        {t('stat.exclusionHint')}
      </Text>
      {v.exclusion === 'range' && (
        <>
          {text('min', t('stat.min'), true)}
          {text('max', t('stat.max'), true)}
        </>
      )}
      {v.exclusion === 'stdDev' && text('sigma', t('stat.sigma'), true)}
      {text('timeZone', t('stat.timeZone'), true)}
      {text('remark', t('stat.remark'))}
    </FormDialog>
  );
}

/** The last 30 days of a task's results, one row per window and key. */
function ResultsDialog({ task, onClose }: { task: TaskRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const results = useQuery({
    queryKey: ['statResults', task?.id],
    enabled: task !== null,
    queryFn: async () => {
      const to = new Date();
      const from = new Date(to.getTime() - 30 * 86_400_000);
      return callRoute('statResult.list', { query: { taskId: task!.id, from: from.toISOString(), to: to.toISOString() } });
    },
  });
  return (
    <Dialog.Root open={task !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="720px" aria-describedby={undefined}>
        <Dialog.Title>
          {t('stat.results')}: {task?.name}
        </Dialog.Title>
        {results.data?.length === 0 ? (
          <Text color="gray">{t('stat.noResults')}</Text>
        ) : (
          <Table.Root size="1">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>{t('stat.windowStart')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('stat.key')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('stat.value')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('stat.samples')}</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {(results.data ?? []).map((r) => (
                <Table.Row key={`${r.windowStart} ${r.key}`}>
                  <Table.Cell>{new Date(r.windowStart).toLocaleString()}</Table.Cell>
                  <Table.Cell>{r.key}</Table.Cell>
                  <Table.Cell>{r.value ?? '-'}</Table.Cell>
                  <Table.Cell>{r.samples}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        )}
        <Flex justify="end" mt="3">
          <Button variant="soft" onClick={onClose}>
            {t('common.close')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** A local date and time for a datetime-local input. */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Asks for a backfill of a task over a past range (local dates and times, sent as instants). */
function BackfillDialog({ task, onClose }: { task: TaskRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const change = useListChange(TASKS);
  const now = new Date();
  const [from, setFrom] = useState(() => localInput(new Date(now.getTime() - 7 * 86_400_000)));
  const [to, setTo] = useState(() => localInput(now));
  const submit = async () => {
    const body = { id: task!.id, from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    if (await change(() => callRoute('statTask.backfill', { body }), t('stat.backfillStarted'))) onClose();
  };
  return (
    <Dialog.Root open={task !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="480px">
        <Dialog.Title>{t('stat.backfillTitle', { name: task?.name ?? '' })}</Dialog.Title>
        <Dialog.Description size="2" color="gray" mb="3">
          {t('stat.backfillHint')}
        </Dialog.Description>
        <Flex direction="column" gap="3">
          <label>
            <Text size="2">{t('stat.backfillFrom')}</Text>
            <DateTimeInput value={from} onChange={setFrom} data-testid="backfill-from" />
          </label>
          <label>
            <Text size="2">{t('stat.backfillTo')}</Text>
            <DateTimeInput value={to} onChange={setTo} data-testid="backfill-to" />
          </label>
        </Flex>
        <Flex justify="end" gap="2" mt="4">
          <Button variant="soft" color="gray" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button onClick={() => void submit()} disabled={!from || !to}>
            {t('stat.backfill')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** How often a running backfill's progress is asked again beside the `stat.backfill` channel (a missed message, a reconnect). */
const BACKFILL_POLL_MS = 15_000;
const backfillKey = (taskId: string) => ['statTaskBackfill', taskId];

/** Writes each backfill's progress from the `stat.backfill` channel where the task's progress bar reads it, while the screen is open. */
function useBackfillFeed() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const socket = new WebSocket(channelUrl('stat.backfill'));
    socket.onmessage = (m) => {
      const { taskId, ...backfill } = JSON.parse(String(m.data)) as StatBackfillFeed;
      queryClient.setQueryData(backfillKey(taskId), backfill);
    };
    return () => socket.close();
  }, [queryClient]);
}

/** A task's latest backfill: a progress bar, moved by the `stat.backfill` channel while it runs. */
function BackfillCell({ task }: { task: TaskRow }) {
  const { t } = useTranslation();
  const running = task.backfill?.status === 'running';
  const live = useQuery({
    queryKey: backfillKey(task.id),
    enabled: running,
    refetchInterval: (q) => (q.state.data?.status === 'running' || (!q.state.data && running) ? BACKFILL_POLL_MS : false),
    queryFn: async () => (await callRoute('statTask.detail', { query: { id: task.id } })).backfill,
  });
  const backfill = (running ? live.data : null) ?? task.backfill;
  if (!backfill) return <Text color="gray">-</Text>;
  const percent = Math.floor(backfill.progress * 100);
  return (
    <Flex direction="column" gap="1" data-testid="backfill-progress" data-status={backfill.status}>
      <Progress value={percent} color={backfill.status === 'failed' ? 'red' : backfill.status === 'cancelled' ? 'gray' : undefined} />
      <Text size="1" color="gray">
        {t(`stat.backfillStatus.${backfill.status}`, { percent })}
      </Text>
    </Flex>
  );
}

/** Statistic tasks (spec §3, §9): defined here, enabled or stopped after a confirm, computed at each cycle's end. */
export function StatTaskPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<TaskRow | 'new' | null>(null);
  const [viewing, setViewing] = useState<TaskRow | null>(null);
  const [backfilling, setBackfilling] = useState<TaskRow | null>(null);
  useBackfillFeed();
  const deleteRows = useEachDelete<TaskRow>(TASKS, 'statTask.delete', t('objects.statTask'), (r) => r.name);
  const change = useListChange(TASKS);
  const toggle = (r: TaskRow) => {
    const status = r.status === 'enabled' ? 'stopped' : 'enabled';
    void change(
      () => callRoute('statTask.status', { body: { id: r.id, status } }),
      t(status === 'enabled' ? 'stat.enabled' : 'stat.stopped'),
      { message: t(status === 'enabled' ? 'stat.enableQuestion' : 'stat.stopQuestion', { name: r.name }), danger: status === 'stopped' },
    );
  };
  const columns: ListColumn<TaskRow>[] = [
    { id: 'name', header: t('stat.name'), value: (r) => r.name, sortable: true, width: 160 },
    { id: 'dataType', header: t('stat.dataType'), value: (r) => t(`stat.dataTypes.${r.dataType}`), width: 100 },
    { id: 'product', header: t('stat.product'), value: (r) => r.productName ?? (r.productId ? '' : t('stat.allProducts')), width: 120 },
    {
      id: 'attribute',
      header: t('stat.attribute'),
      value: (r) => (r.attributeName ? `${r.attributeName} (${r.attribute})` : r.attribute),
      width: 140,
    },
    { id: 'statType', header: t('stat.statType'), value: (r) => t(`stat.statTypes.${r.statType}`), width: 100 },
    { id: 'cycle', header: t('stat.cycle'), value: (r) => t(`stat.cycles.${r.cycle}`), width: 90 },
    { id: 'dimension', header: t('stat.dimension'), value: (r) => t(`stat.dimensions.${r.dimension}`), width: 90 },
    { id: 'exclusion', header: t('stat.exclusion'), value: (r) => t(`stat.exclusions.${r.exclusion.mode}`), width: 120 },
    statusColumn<TaskRow>(t, t('stat.status'), 90),
    {
      id: 'backfill',
      header: t('stat.backfillColumn'),
      value: (r) => (r.backfill ? t(`stat.backfillStatus.${r.backfill.status}`, { percent: Math.floor(r.backfill.progress * 100) }) : ''),
      cell: (r) => <BackfillCell task={r} />,
      width: 130,
    },
    { id: 'createTime', header: t('stat.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<TaskRow>
        queryKey={TASKS}
        route="statTask.list"
        exportName={t('objects.statTask')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('stat.name') },
          { name: 'cycle', label: t('stat.cycle'), type: 'select', options: labelled(t, 'stat.cycles', statCycles) },
        ]}
        rowActions={(r) => (
          <Flex gap="2">
            <PermittedRowButton
              permission={statPerm.enable}
              label={t(r.status === 'enabled' ? 'stat.stop' : 'stat.enable')}
              danger={r.status === 'enabled'}
              onClick={() => toggle(r)}
            />
            <PermittedRowButton permission={statPerm.result} label={t('stat.results')} onClick={() => setViewing(r)} />
            {r.backfill?.status === 'running' ? (
              <PermittedRowButton
                permission={statPerm.edit}
                label={t('stat.backfillCancel')}
                danger
                onClick={() =>
                  void change(() => callRoute('statTask.backfillCancel', { body: { id: r.id } }), t('stat.backfillCancelled'), {
                    message: t('stat.backfillCancelQuestion', { name: r.name }),
                    danger: true,
                  })
                }
              />
            ) : (
              <PermittedRowButton permission={statPerm.edit} label={t('stat.backfill')} onClick={() => setBackfilling(r)} />
            )}
          </Flex>
        )}
        actions={crudActions<TaskRow>(
          t,
          { add: statPerm.add, edit: statPerm.edit, delete: statPerm.delete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <TaskDialog editing={editing} onClose={() => setEditing(null)} />
      <ResultsDialog task={viewing} onClose={() => setViewing(null)} />
      {backfilling && <BackfillDialog task={backfilling} onClose={() => setBackfilling(null)} />}
    </>
  );
}
