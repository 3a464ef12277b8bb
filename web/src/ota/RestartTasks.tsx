import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Dialog, Flex, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { fileTaskStatuses } from '@iot/contracts/constants.ts';
import { restartPerm } from '@iot/contracts/restart/model.ts';
import { callRoute } from '../api/client.ts';
import { useGroupOptions } from '../fleet/groups.ts';
import { labelled, PermittedRowButton, useListChange, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

type TaskRow = Awaited<ReturnType<typeof callRoute<'restartTask.list'>>>['rows'][number];
const TASKS = 'restartTasks';
/** How often a running task's devices are asked again. */
const POLL_MS = 2_000;

const statusColor = { nonExecution: 'gray', executing: 'blue', pause: 'amber', success: 'green', fail: 'red', cancel: 'gray' } as const;
const running = (status: TaskRow['status']) => status === 'nonExecution' || status === 'executing';

/** `datetime-local` text for an instant, in the browser's zone. */
const localInput = (at: Date) => new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

const emptyOf = () => {
  const now = new Date();
  return {
    name: '',
    kind: 'product',
    productId: '',
    groupId: '',
    deviceIds: '',
    taskTime: localInput(now),
    expiry: localInput(new Date(now.getTime() + 3_600_000)),
  };
};
type Values = ReturnType<typeof emptyOf>;

function StatusBadge({ status }: { status: TaskRow['status'] }) {
  const { t } = useTranslation();
  return <Badge color={statusColor[status]}>{t(`ota.statuses.${status}`)}</Badge>;
}

/** A restart task: which devices, when, and until when an offline device is retried (spec §4: expiry later than task time). */
function CreateDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const products = useQuery({
    queryKey: ['products', 'options'],
    enabled: open,
    queryFn: async () =>
      (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({ value: p.id, label: `${p.name} (${p.code})` })),
  });
  const groups = useGroupOptions();
  const empty = emptyOf();
  const { form, run, done, dialog } = useRecordDialog({ editing: open ? 'new' : null, empty, queryKey: TASKS, onClose, valuesOf: emptyOf });
  const v = form.values;
  const submit = async () => {
    const taskTime = Date.parse(v.taskTime);
    const expiry = Date.parse(v.expiry);
    if (Number.isNaN(taskTime)) return form.setErrors({ taskTime: t('restart.taskTime') });
    if (Number.isNaN(expiry) || expiry <= taskTime) return form.setErrors({ expiry: t('restart.expiryAfter') });
    const target =
      v.kind === 'product'
        ? { kind: 'product', productId: v.productId }
        : v.kind === 'group'
          ? { kind: 'group', groupId: v.groupId }
          : { kind: 'devices', deviceIds: v.deviceIds.split(/[\s,]+/).filter(Boolean) };
    const checked = checkBody(
      'restartTask.create',
      { name: v.name, target, taskTime: new Date(taskTime).toISOString(), expiry: new Date(expiry).toISOString() },
      t,
    );
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute('restartTask.create', { body: checked.data });
      await done(t('common.created'));
    });
  };
  const text = (key: keyof Values, label: string, required = false, kind?: 'datetime') => (
    <Field label={label} required={required} error={form.errors[key]}>
      {kind ? (
        <DateTimeInput name={key} aria-label={label} value={v[key]} onChange={(x) => form.set(key, x)} />
      ) : (
        <TextField.Root name={key} value={v[key]} onChange={(e) => form.set(key, e.target.value)} />
      )}
    </Field>
  );
  const select = (key: keyof Values, label: string, options: Array<{ value: string; label: string }>) => (
    <Field label={label} required error={form.errors[key] ?? form.errors[`target.${key}`]}>
      <SelectInput
        name={key}
        value={v[key]}
        onChange={(x) => form.set(key, x)}
        options={options}
        placeholder={t('common.selectPlaceholder')}
      />
    </Field>
  );
  return (
    <FormDialog
      {...dialog}
      width="640px"
      title={t('common.addObject', { object: t('objects.restartTask') })}
      onSubmit={() => void submit()}
    >
      {text('name', t('ota.name'), true)}
      {select('kind', t('ota.target'), labelled(t, 'ota.targets', ['product', 'group', 'devices']))}
      {v.kind === 'product' && select('productId', t('ota.product'), products.data ?? [])}
      {v.kind === 'group' && select('groupId', t('ota.group'), groups.data ?? [])}
      {v.kind === 'devices' && text('deviceIds', t('ota.deviceIds'), true)}
      {text('taskTime', t('restart.taskTime'), true, 'datetime')}
      {text('expiry', t('restart.expiry'), true, 'datetime')}
      <Text size="1" color="gray">
        {t('restart.hint')}
      </Text>
    </FormDialog>
  );
}

/** A task's devices with their result, asked again every few seconds while it runs. */
function DevicesDialog({ task, onClose }: { task: TaskRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const devices = useQuery({
    queryKey: [TASKS, 'devices', task?.id],
    enabled: task !== null,
    queryFn: () => callRoute('restartTask.devices', { query: { taskId: task!.id, pageSize: 500 } }),
    refetchInterval: task && running(task.status) ? POLL_MS : false,
  });
  return (
    <Dialog.Root open={task !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="760px" aria-describedby={undefined}>
        <Dialog.Title>
          {t('ota.detail')}: {task?.name}
        </Dialog.Title>
        {task && (
          <Flex direction="column" gap="3">
            <Flex gap="4" wrap="wrap" align="center">
              <StatusBadge status={task.status} />
              <Text size="2">
                {t('restart.taskTime')}: {new Date(task.taskTime).toLocaleString()}
              </Text>
              <Text size="2">
                {t('restart.expiry')}: {new Date(task.expiry).toLocaleString()}
              </Text>
            </Flex>
            <Table.Root size="1" style={{ maxHeight: 420, overflow: 'auto' }}>
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>{t('ota.sn')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.status')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.failReason')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.updateTime')}</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {(devices.data?.rows ?? []).map((d) => (
                  <Table.Row key={d.deviceId}>
                    <Table.Cell>{d.sn}</Table.Cell>
                    <Table.Cell>
                      <StatusBadge status={d.status} />
                    </Table.Cell>
                    <Table.Cell>{d.reason ?? ''}</Table.Cell>
                    <Table.Cell>{new Date(d.updateTime).toLocaleString()}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </Flex>
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

/** Restart tasks (issue 21, spec §4), the second tab of the upgrade-task screen. */
export function RestartTasks() {
  const { t } = useTranslation();
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<TaskRow | null>(null);
  const change = useListChange(TASKS);
  const columns: ListColumn<TaskRow>[] = [
    { id: 'name', header: t('ota.name'), value: (r) => r.name, sortable: true, width: 160 },
    {
      id: 'status',
      header: t('ota.status'),
      value: (r) => t(`ota.statuses.${r.status}`),
      cell: (r) => <StatusBadge status={r.status} />,
      width: 90,
    },
    { id: 'taskTime', header: t('restart.taskTime'), value: (r) => new Date(r.taskTime).toLocaleString(), sortable: true, width: 150 },
    { id: 'expiry', header: t('restart.expiry'), value: (r) => new Date(r.expiry).toLocaleString(), width: 150 },
    {
      id: 'progress',
      header: t('ota.progress'),
      value: (r) => t('restart.restarted', { success: r.counts.success, total: r.counts.total }),
      width: 140,
    },
    { id: 'createTime', header: t('ota.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<TaskRow>
        queryKey={TASKS}
        route="restartTask.list"
        exportName={t('objects.restartTask')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('ota.name') },
          { name: 'status', label: t('ota.status'), type: 'select', options: labelled(t, 'ota.statuses', fileTaskStatuses) },
        ]}
        rowActions={(r) => (
          <Flex gap="2">
            <PermittedRowButton permission={restartPerm.list} label={t('ota.detail')} onClick={() => setViewing(r)} />
            {running(r.status) && (
              <PermittedRowButton
                permission={restartPerm.cancel}
                label={t('ota.cancel')}
                danger
                onClick={() =>
                  void change(() => callRoute('restartTask.cancel', { body: { id: r.id } }), t('ota.cancelled'), {
                    message: t('restart.cancelQuestion', { name: r.name }),
                    danger: true,
                  })
                }
              />
            )}
          </Flex>
        )}
        actions={[{ label: t('common.add'), permission: restartPerm.add, select: 'none', onClick: () => setCreating(true) }]}
      />
      <CreateDialog open={creating} onClose={() => setCreating(false)} />
      <DevicesDialog task={viewing} onClose={() => setViewing(null)} />
    </>
  );
}
