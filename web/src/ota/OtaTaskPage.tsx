import './i18n.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Dialog, Flex, Progress, Table, Tabs, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { fileTaskStatuses } from '@iot/contracts/constants.ts';
import { otaPerm } from '@iot/contracts/ota/permissions.ts';
import { rolloutFileTypes } from '@iot/contracts/file/model.ts';
import type { OtaProgressFeed } from '@iot/contracts/ota/model.ts';
import { channelMessages } from '@iot/contracts/http/channel.ts';
import { callRoute, channelUrl } from '../api/client.ts';
import { useGroupOptions } from '../fleet/groups.ts';
import { labelled, PermittedRowButton, useListChange, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { RestartTasks } from './RestartTasks.tsx';

type TaskRow = Awaited<ReturnType<typeof callRoute<'otaTask.list'>>>['rows'][number];
const TASKS = 'otaTasks';
/** How often a running task's progress is asked again beside the `ota.progress` channel (a missed message, a reconnect). */
const POLL_MS = 15_000;
/** The waves' counts (which the channel does not carry) are asked again at most this often while devices report. */
const WAVES_MS = 2_000;

const statusColor = { nonExecution: 'gray', executing: 'blue', pause: 'amber', success: 'green', fail: 'red', cancel: 'gray' } as const;
const running = (status: TaskRow['status']) => status === 'nonExecution' || status === 'executing' || status === 'pause';

const empty = {
  name: '',
  fileId: '',
  kind: 'product',
  productId: '',
  version: '',
  groupId: '',
  deviceIds: '',
  size: '100',
  pauseSec: '0',
  failurePercent: '20',
};
type Values = typeof empty;

/** The create wizard: the upgrade package, then which devices, then how the waves go. */
function CreateDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const products = useQuery({
    queryKey: ['products', 'options'],
    enabled: open,
    queryFn: async () =>
      (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({ value: p.id, label: `${p.name} (${p.code})` })),
  });
  // The upgrade package is picked from the uploaded files a rollout may send (upgrade, patch, configuration).
  const files = useQuery({
    queryKey: ['files', 'rolloutOptions'],
    enabled: open,
    queryFn: async () =>
      (await callRoute('file.list', { query: { pageSize: 500 } })).rows
        .filter((f) => rolloutFileTypes.some((type) => type === f.fileType))
        .map((f) => ({ value: f.id, label: `${f.name}${f.version ? ` (${f.version})` : ''} · ${f.sizeMb} MB` })),
  });
  const groups = useGroupOptions();
  const { form, run, done, dialog } = useRecordDialog({
    editing: open ? 'new' : null,
    empty,
    queryKey: TASKS,
    onClose,
    valuesOf: () => empty,
  });
  const v = form.values;
  const submit = async () => {
    if (v.fileId.trim() === '') return form.setErrors({ fileId: t('ota.pickPackage') });
    const target =
      v.kind === 'product'
        ? { kind: 'product', productId: v.productId, ...(v.version.trim() ? { version: v.version.trim() } : {}) }
        : v.kind === 'group'
          ? { kind: 'group', groupId: v.groupId }
          : { kind: 'devices', deviceIds: v.deviceIds.split(/[\s,]+/).filter(Boolean) };
    const checked = checkBody(
      'otaTask.create',
      {
        name: v.name,
        fileId: v.fileId.trim(),
        target,
        waves: { size: Number(v.size), pauseSec: Number(v.pauseSec), failurePercent: Number(v.failurePercent) },
      },
      t,
    );
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute('otaTask.create', { body: checked.data });
      await done(t('common.created'));
    });
  };
  const text = (key: keyof Values, label: string, required = false) => (
    <Field label={label} required={required} error={form.errors[key]}>
      <TextField.Root name={key} value={v[key]} onChange={(e) => form.set(key, e.target.value)} />
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
    <FormDialog {...dialog} width="640px" title={t('common.addObject', { object: t('objects.otaTask') })} onSubmit={() => void submit()}>
      {text('name', t('ota.name'), true)}
      {select('fileId', t('ota.file'), files.data ?? [])}
      {select('kind', t('ota.target'), labelled(t, 'ota.targets', ['product', 'group', 'devices']))}
      {v.kind === 'product' && (
        <>
          {select('productId', t('ota.product'), products.data ?? [])}
          {text('version', t('ota.version'))}
        </>
      )}
      {v.kind === 'group' && select('groupId', t('ota.group'), groups.data ?? [])}
      {v.kind === 'devices' && text('deviceIds', t('ota.deviceIds'), true)}
      {text('size', t('ota.waveSize'), true)}
      {text('pauseSec', t('ota.pauseSec'), true)}
      {text('failurePercent', t('ota.failurePercent'), true)}
      <Text size="1" color="gray">
        {t('ota.failureHint')}
      </Text>
    </FormDialog>
  );
}

function StatusBadge({ status }: { status: TaskRow['status'] }) {
  const { t } = useTranslation();
  return <Badge color={statusColor[status]}>{t(`ota.statuses.${status}`)}</Badge>;
}

type Detail = Awaited<ReturnType<typeof callRoute<'otaTask.detail'>>>;
type Devices = Awaited<ReturnType<typeof callRoute<'otaTask.devices'>>>;

/**
 * Keeps an open task's detail and device page current from the `ota.progress` channel: a device's change is written
 * into its row, the task's status and counts into the detail, and the per-wave counts are asked again now and then.
 */
function useProgressFeed(taskId: string | null) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (taskId === null) return;
    const socket = new WebSocket(channelUrl('ota.progress'));
    let waves: ReturnType<typeof setTimeout> | null = null;
    socket.onmessage = (m) => {
      // A frame holds one message or the messages of one moment: the device rows are written once per frame.
      const messages = (channelMessages(String(m.data)) as OtaProgressFeed[]).filter((message) => message.taskId === taskId);
      const changes = new Map<string, Extract<OtaProgressFeed, { type: 'device' }>>();
      let task: Extract<OtaProgressFeed, { type: 'task' }> | null = null;
      for (const message of messages) {
        if (message.type === 'device') changes.set(message.deviceId, { ...changes.get(message.deviceId), ...message });
        else task = message;
      }
      if (changes.size > 0)
        queryClient.setQueriesData<Devices>(
          { queryKey: [TASKS, 'devices', taskId] },
          (page) =>
            page && {
              ...page,
              rows: page.rows.map((row) => {
                const change = changes.get(row.deviceId);
                if (!change) return row;
                const { status, stage, percent, at } = change;
                return {
                  ...row,
                  status,
                  updateTime: at,
                  ...(stage !== undefined ? { stage } : {}),
                  ...(percent !== undefined ? { percent } : {}),
                };
              }),
            },
        );
      if (!task) return;
      const { status, wave, counts } = task;
      queryClient.setQueryData<Detail>([TASKS, 'detail', taskId], (detail) => detail && { ...detail, status, wave, counts });
      waves ??= setTimeout(() => {
        waves = null;
        void queryClient.invalidateQueries({ queryKey: [TASKS, 'detail', taskId] });
      }, WAVES_MS);
    };
    return () => {
      if (waves) clearTimeout(waves);
      socket.close();
    };
  }, [queryClient, taskId]);
}

/** A task's progress per wave and per device, live over the `ota.progress` channel while it runs. */
function DetailDialog({ taskId, onClose }: { taskId: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [wave, setWave] = useState<number | null>(null);
  useProgressFeed(taskId);
  const detail = useQuery({
    queryKey: [TASKS, 'detail', taskId],
    enabled: taskId !== null,
    queryFn: () => callRoute('otaTask.detail', { query: { id: taskId! } }),
    refetchInterval: (q) => (q.state.data && !running(q.state.data.status) ? false : POLL_MS),
  });
  const devices = useQuery({
    queryKey: [TASKS, 'devices', taskId, wave],
    enabled: taskId !== null,
    queryFn: () => callRoute('otaTask.devices', { query: { taskId: taskId!, pageSize: 200, ...(wave ? { wave } : {}) } }),
    refetchInterval: detail.data && !running(detail.data.status) ? false : POLL_MS,
  });
  const task = detail.data;
  return (
    <Dialog.Root open={taskId !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="900px" aria-describedby={undefined}>
        <Dialog.Title>
          {t('ota.detail')}: {task?.name}
        </Dialog.Title>
        {task && (
          <Flex direction="column" gap="3">
            <Flex gap="4" wrap="wrap" align="center">
              <StatusBadge status={task.status} />
              <Text size="2">
                {t('ota.file')}: {task.file.name} {task.file.version ?? ''}
              </Text>
              <Text size="2">{t('ota.waveOf', { wave: task.wave, count: task.waveCount })}</Text>
              <Text size="2">{t('ota.upgraded', { success: task.counts.success, total: task.counts.total })}</Text>
              {task.nextWaveAt && (
                <Text size="2">
                  {t('ota.nextWaveAt')}: {new Date(task.nextWaveAt).toLocaleString()}
                </Text>
              )}
              {task.reason && (
                <Text size="2" color="red">
                  {t('ota.reason')}: {task.reason}
                </Text>
              )}
            </Flex>
            <Table.Root size="1">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>{t('ota.wave')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.progress')}</Table.ColumnHeaderCell>
                  {fileTaskStatuses.map((s) => (
                    <Table.ColumnHeaderCell key={s}>{t(`ota.statuses.${s}`)}</Table.ColumnHeaderCell>
                  ))}
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {task.waveCounts.map((w) => (
                  <Table.Row key={w.wave} onClick={() => setWave(wave === w.wave ? null : w.wave)} style={{ cursor: 'pointer' }}>
                    <Table.Cell>
                      {w.wave}
                      {wave === w.wave ? ' ✓' : ''}
                    </Table.Cell>
                    <Table.Cell style={{ minWidth: 120 }}>
                      <Progress
                        value={w.counts.total ? ((w.counts.success + w.counts.fail + w.counts.cancel) * 100) / w.counts.total : 0}
                      />
                    </Table.Cell>
                    {fileTaskStatuses.map((s) => (
                      <Table.Cell key={s}>{w.counts[s]}</Table.Cell>
                    ))}
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
            <Table.Root size="1" style={{ maxHeight: 360, overflow: 'auto' }}>
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>{t('ota.sn')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.wave')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.status')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.stage')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.percent')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.fromVersion')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.toVersion')}</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>{t('ota.failReason')}</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {(devices.data?.rows ?? []).map((d) => (
                  <Table.Row key={d.deviceId}>
                    <Table.Cell>{d.sn}</Table.Cell>
                    <Table.Cell>{d.wave}</Table.Cell>
                    <Table.Cell>
                      <StatusBadge status={d.status} />
                    </Table.Cell>
                    <Table.Cell>{d.stage ? t(`ota.stages.${d.stage}`) : '-'}</Table.Cell>
                    <Table.Cell>{d.percent === null ? '-' : `${d.percent}%`}</Table.Cell>
                    <Table.Cell>{d.fromVersion ?? '-'}</Table.Cell>
                    <Table.Cell>{d.toVersion ?? '-'}</Table.Cell>
                    <Table.Cell>{d.reason ?? ''}</Table.Cell>
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

/** OTA and configuration rollouts (issue 21, spec §4 file task states), under device management. */
function UpgradeTasks() {
  const { t } = useTranslation();
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<string | null>(null);
  const change = useListChange(TASKS);
  const act = (
    r: TaskRow,
    route: 'otaTask.pause' | 'otaTask.resume' | 'otaTask.cancel',
    question: string,
    success: string,
    danger = false,
  ) => void change(() => callRoute(route, { body: { id: r.id } }), t(success), { message: t(question, { name: r.name }), danger });
  const columns: ListColumn<TaskRow>[] = [
    { id: 'name', header: t('ota.name'), value: (r) => r.name, sortable: true, width: 160 },
    { id: 'file', header: t('ota.file'), value: (r) => r.file.name, width: 160 },
    { id: 'fileVersion', header: t('ota.fileVersion'), value: (r) => r.file.version ?? '-', width: 80 },
    {
      id: 'status',
      header: t('ota.status'),
      value: (r) => t(`ota.statuses.${r.status}`),
      cell: (r) => <StatusBadge status={r.status} />,
      width: 90,
    },
    { id: 'wave', header: t('ota.wave'), value: (r) => t('ota.waveOf', { wave: r.wave, count: r.waveCount }), width: 110 },
    {
      id: 'progress',
      header: t('ota.progress'),
      value: (r) => t('ota.upgraded', { success: r.counts.success, total: r.counts.total }),
      width: 140,
    },
    { id: 'createTime', header: t('ota.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<TaskRow>
        queryKey={TASKS}
        route="otaTask.list"
        exportName={t('objects.otaTask')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('ota.name') },
          { name: 'status', label: t('ota.status'), type: 'select', options: labelled(t, 'ota.statuses', fileTaskStatuses) },
        ]}
        rowActions={(r) => (
          <Flex gap="2">
            <PermittedRowButton permission={otaPerm.list} label={t('ota.detail')} onClick={() => setViewing(r.id)} />
            {(r.status === 'executing' || r.status === 'nonExecution') && (
              <PermittedRowButton
                permission={otaPerm.pause}
                label={t('ota.pause')}
                onClick={() => act(r, 'otaTask.pause', 'ota.pauseQuestion', 'ota.paused')}
              />
            )}
            {r.status === 'pause' && (
              <PermittedRowButton
                permission={otaPerm.pause}
                label={t('ota.resume')}
                onClick={() => act(r, 'otaTask.resume', 'ota.resumeQuestion', 'ota.resumed')}
              />
            )}
            {running(r.status) && (
              <PermittedRowButton
                permission={otaPerm.cancel}
                label={t('ota.cancel')}
                danger
                onClick={() => act(r, 'otaTask.cancel', 'ota.cancelQuestion', 'ota.cancelled', true)}
              />
            )}
          </Flex>
        )}
        actions={[{ label: t('common.add'), permission: otaPerm.add, select: 'none', onClick: () => setCreating(true) }]}
      />
      <CreateDialog open={creating} onClose={() => setCreating(false)} />
      <DetailDialog taskId={viewing} onClose={() => setViewing(null)} />
    </>
  );
}

/** Device management → upgrade tasks: OTA and configuration rollouts, and restart tasks, as two tabs. */
export function OtaTaskPage() {
  const { t } = useTranslation();
  return (
    <Tabs.Root defaultValue="upgrade">
      <Tabs.List>
        <Tabs.Trigger value="upgrade">{t('restart.tabUpgrade')}</Tabs.Trigger>
        <Tabs.Trigger value="restart">{t('restart.tabRestart')}</Tabs.Trigger>
      </Tabs.List>
      <Tabs.Content value="upgrade">
        <UpgradeTasks />
      </Tabs.Content>
      <Tabs.Content value="restart">
        <RestartTasks />
      </Tabs.Content>
    </Tabs.Root>
  );
}
