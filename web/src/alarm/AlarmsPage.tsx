import './i18n.ts';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Flex, IconButton, SegmentedControl, Table, Text, TextArea, TextField } from '@radix-ui/themes';
import { PlusIcon, TrashIcon } from '@radix-ui/react-icons';
import { useQuery } from '@tanstack/react-query';
import { alarmPerm, alarmTypes, alarmTriggers, isIncomplete, manualEntry, MANUAL_ENTRY_MAX } from '@iot/contracts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { PermittedRowButton, reportBulk, useBusy, useListChange } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, FormDialog } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { LevelBadge, useAlarmFeed } from './common.tsx';
import { AlarmDetailDialog } from './AlarmDetail.tsx';

type AlarmRow = Awaited<ReturnType<typeof callRoute<'alarm.list'>>>['rows'][number];
const ALARMS = 'alarms';
const levels = ['1', '2', '3', '4', '5'];

type Draft = { deviceId: string; variable: string; type: string; level: string; trigger: string; faultFlag: string; cause: string };
const emptyRow: Draft = { deviceId: '', variable: '', type: 'device', level: '3', trigger: 'manual', faultFlag: 'true', cause: '' };

/** Spec §5 manual fault entry: at most 10 rows; incomplete rows warn and ask whether to continue. */
function ManualEntryDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [rows, setRows] = useState<Draft[]>([{ ...emptyRow }]);
  const { busy, run } = useBusy();
  const refresh = useRefresh(ALARMS);
  const devices = useQuery({
    queryKey: ['devices', 'options'],
    enabled: open,
    queryFn: async () =>
      (await callRoute('device.list', { query: { pageSize: 500 } })).rows.map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` })),
  });
  const set = (i: number, key: keyof Draft, value: string) => setRows((all) => all.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  const add = () => {
    if (rows.length >= MANUAL_ENTRY_MAX) return notice.error(t('alarm.tooMany'));
    setRows([...rows, { ...emptyRow }]);
  };
  const submit = () =>
    run(
      async () => {
        const body = rows
          .filter((r) => r.deviceId)
          .map((r) =>
            manualEntry.parse({
              deviceId: r.deviceId,
              variable: r.variable.trim() || null,
              type: r.type || null,
              level: r.level ? Number(r.level) : null,
              trigger: r.trigger || null,
              faultFlag: r.faultFlag === '' ? null : r.faultFlag === 'true',
              cause: r.cause,
            }),
          );
        if (body.length === 0) return notice.error(`${t('alarm.device')}: ${t('validation.required')}`);
        const incomplete = body.some(isIncomplete);
        if (incomplete && !(await confirm({ message: t('alarm.incomplete') }))) return;
        await callRoute('alarm.manual', { body: { rows: body, confirmIncomplete: incomplete } });
        notice.success(t('alarm.entered'));
        await refresh();
        setRows([{ ...emptyRow }]);
        onClose();
      },
      (error) => notice.error(messageOf(error)),
    );
  const options = (prefix: string, values: readonly (string | number)[]) =>
    values.map((v) => ({ value: String(v), label: t(`${prefix}.${v}`) }));
  return (
    <FormDialog
      open={open}
      dirty={rows.some((r) => r.deviceId)}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
      title={t('alarm.manualEntry')}
      width="1100px"
    >
      <Table.Root size="1" data-testid="manual-entry">
        <Table.Header>
          <Table.Row>
            {['device', 'variable', 'type', 'level', 'trigger', 'faultFlag', 'cause'].map((k) => (
              <Table.ColumnHeaderCell key={k}>{t(`alarm.${k}`)}</Table.ColumnHeaderCell>
            ))}
            <Table.ColumnHeaderCell />
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((r, i) => (
            <Table.Row key={i}>
              <Table.Cell style={{ minWidth: 200 }}>
                <SelectInput
                  name={`deviceId-${i}`}
                  value={r.deviceId}
                  onChange={(v) => set(i, 'deviceId', v)}
                  options={devices.data ?? []}
                  placeholder={t('common.selectPlaceholder')}
                />
              </Table.Cell>
              <Table.Cell>
                <TextField.Root name={`variable-${i}`} value={r.variable} onChange={(e) => set(i, 'variable', e.target.value)} />
              </Table.Cell>
              <Table.Cell>
                <SelectInput value={r.type} onChange={(v) => set(i, 'type', v)} options={options('alarm.types', alarmTypes)} />
              </Table.Cell>
              <Table.Cell>
                <SelectInput value={r.level} onChange={(v) => set(i, 'level', v)} options={options('alarm.levels', levels)} />
              </Table.Cell>
              <Table.Cell>
                <SelectInput value={r.trigger} onChange={(v) => set(i, 'trigger', v)} options={options('alarm.triggers', alarmTriggers)} />
              </Table.Cell>
              <Table.Cell>
                <SelectInput
                  value={r.faultFlag}
                  onChange={(v) => set(i, 'faultFlag', v)}
                  options={[
                    { value: 'true', label: t('alarm.yes') },
                    { value: 'false', label: t('alarm.no') },
                  ]}
                />
              </Table.Cell>
              <Table.Cell>
                <TextField.Root value={r.cause} onChange={(e) => set(i, 'cause', e.target.value)} />
              </Table.Cell>
              <Table.Cell>
                <IconButton
                  type="button"
                  size="1"
                  variant="ghost"
                  color="red"
                  aria-label={t('alarm.removeRow')}
                  disabled={rows.length === 1}
                  onClick={() => setRows(rows.filter((_, j) => j !== i))}
                >
                  <TrashIcon />
                </IconButton>
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
      <Flex justify="between" align="center">
        <Button type="button" variant="soft" onClick={add}>
          <PlusIcon /> {t('alarm.addRow')}
        </Button>
        <Text size="1" color="gray">
          {rows.length} / {MANUAL_ENTRY_MAX}
        </Text>
      </Flex>
    </FormDialog>
  );
}

/** Processing notes one or more alarms; opening a ticket assigns one to a contact. */
function NoteDialog({ target, onClose }: { target: { kind: 'process' | 'ticket'; rows: AlarmRow[] } | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [note, setNote] = useState('');
  const [contactId, setContactId] = useState('');
  const { busy, run } = useBusy();
  const refresh = useRefresh(ALARMS);
  const contacts = useQuery({
    queryKey: ['contacts', 'options'],
    enabled: target?.kind === 'ticket',
    queryFn: async () => (await callRoute('contact.list', { query: { pageSize: 500 } })).rows.map((c) => ({ value: c.id, label: c.name })),
  });
  const submit = () =>
    run(async () => {
      if (!target) return;
      if (target.kind === 'process') {
        if (!note.trim()) return notice.error(`${t('alarm.processNote')}: ${t('validation.required')}`);
        reportBulk(t, await callRoute('alarm.process', { body: { ids: target.rows.map((r) => r.id), note } }));
        notice.success(t('alarm.done'));
      } else {
        if (!contactId) return notice.error(`${t('alarm.assignee')}: ${t('validation.required')}`);
        const opened = await callRoute('alarm.ticket', { body: { id: target.rows[0]!.id, contactId, note: note || null } });
        notice.success(`${t('alarm.openTicket')}: ${opened.ticketId}`);
      }
      setNote('');
      await refresh();
      onClose();
    });
  return (
    <FormDialog
      open={target !== null}
      dirty={note !== ''}
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
      title={t(target?.kind === 'ticket' ? 'alarm.openTicket' : 'alarm.process')}
    >
      {target?.kind === 'ticket' && (
        <Field label={t('alarm.assignee')} required>
          <SelectInput
            name="contactId"
            value={contactId}
            onChange={setContactId}
            options={contacts.data ?? []}
            placeholder={t('common.selectPlaceholder')}
          />
        </Field>
      )}
      <Field label={t(target?.kind === 'ticket' ? 'alarm.note' : 'alarm.processNote')} required={target?.kind === 'process'}>
        <TextArea name="note" value={note} onChange={(e) => setNote(e.target.value)} maxLength={512} />
      </Field>
    </FormDialog>
  );
}

/** Alarm monitoring (spec §2): current and historical tabs, filters, bulk acknowledge, process and clear, manual entry. */
export function AlarmsPage() {
  const { t } = useTranslation();
  const user = useSession();
  const [tab, setTab] = useState<'current' | 'history'>('current');
  const [entering, setEntering] = useState(false);
  const [noting, setNoting] = useState<{ kind: 'process' | 'ticket'; rows: AlarmRow[] } | null>(null);
  // The alarm shown in the detail dialog is in the address (?alarm=ID), so the bell and a link can open it.
  const [search, setSearch] = useSearchParams();
  const shown = search.get('alarm');
  const show = (id: string | null) =>
    setSearch(
      (s) => {
        const next = new URLSearchParams(s);
        if (id) next.set('alarm', id);
        else next.delete('alarm');
        return next;
      },
      { replace: !id },
    );
  const change = useListChange(ALARMS);
  useAlarmFeed([ALARMS]);
  const bulk = (name: 'alarm.ack' | 'alarm.clear', rows: AlarmRow[]) =>
    change(async () => reportBulk(t, await callRoute(name, { body: { ids: rows.map((r) => r.id) } })), t('alarm.done'));
  const columns: ListColumn<AlarmRow>[] = [
    {
      id: 'level',
      header: t('alarm.level'),
      value: (r) => t(`alarm.levels.${r.level}`),
      cell: (r) => <LevelBadge level={r.level} />,
      sortable: true,
      width: 90,
    },
    { id: 'device', header: t('alarm.device'), value: (r) => r.deviceName, width: 140 },
    { id: 'sn', header: t('alarm.sn'), value: (r) => r.sn, width: 120 },
    { id: 'rule', header: t('alarm.rule'), value: (r) => r.ruleName ?? t('alarm.triggers.manual'), width: 120 },
    { id: 'variable', header: t('alarm.variable'), value: (r) => r.variable, width: 110 },
    { id: 'value', header: t('alarm.value'), value: (r) => r.value ?? r.text, width: 80 },
    { id: 'threshold', header: t('alarm.threshold'), value: (r) => r.threshold, width: 90 },
    { id: 'type', header: t('alarm.type'), value: (r) => t(`alarm.types.${r.type}`), width: 90 },
    { id: 'trigger', header: t('alarm.trigger'), value: (r) => t(`alarm.triggers.${r.trigger}`), width: 80 },
    { id: 'count', header: t('alarm.count'), value: (r) => r.count, width: 60 },
    { id: 'raisedAt', header: t('alarm.raisedAt'), value: (r) => formatDate(r.raisedAt, true), sortable: true, width: 150 },
    ...(tab === 'history'
      ? [
          {
            id: 'clearedAt',
            header: t('alarm.clearedAt'),
            value: (r: AlarmRow) => formatDate(r.clearedAt, true),
            sortable: true,
            width: 150,
          },
        ]
      : []),
    {
      id: 'processed',
      header: t('alarm.processed'),
      value: (r) => t(r.processed ? 'alarm.processedYes' : 'alarm.processedNo'),
      cell: (r) => (
        <Flex gap="1">
          <Badge color={r.processed ? 'green' : 'amber'} variant="soft">
            {t(r.processed ? 'alarm.processedYes' : 'alarm.processedNo')}
          </Badge>
          {r.acknowledged && <Badge variant="soft">{t('alarm.acknowledged')}</Badge>}
        </Flex>
      ),
      width: 150,
    },
    { id: 'processNote', header: t('alarm.processNote'), value: (r) => r.processNote, width: 140 },
    { id: 'cause', header: t('alarm.cause'), value: (r) => r.cause, width: 140 },
    { id: 'ticket', header: t('notify.ticketId'), value: (r) => r.ticketId, width: 150 },
  ];
  return (
    <>
      <Flex mb="3">
        <SegmentedControl.Root value={tab} onValueChange={(v) => setTab(v as 'current' | 'history')} aria-label={t('alarm.status')}>
          <SegmentedControl.Item value="current">{t('alarm.current')}</SegmentedControl.Item>
          <SegmentedControl.Item value="history">{t('alarm.history')}</SegmentedControl.Item>
        </SegmentedControl.Root>
      </Flex>
      <ListPage<AlarmRow>
        key={tab}
        queryKey={ALARMS}
        route="alarm.list"
        params={{ tab }}
        exportName={t(tab === 'current' ? 'alarm.current' : 'alarm.history')}
        columns={columns}
        defaultSort={{ sort: 'raisedAt', order: 'desc' }}
        filters={[
          {
            name: 'level',
            label: t('alarm.level'),
            type: 'select',
            options: levels.map((l) => ({ value: l, label: t(`alarm.levels.${l}`) })),
          },
          { name: 'sn', label: t('alarm.sn') },
          {
            name: 'processed',
            label: t('alarm.processed'),
            type: 'select',
            options: [
              { value: 'true', label: t('alarm.processedYes') },
              { value: 'false', label: t('alarm.processedNo') },
            ],
          },
          { name: 'from', label: t('alarm.from'), type: 'datetime' },
          { name: 'to', label: t('alarm.to'), type: 'datetime' },
        ]}
        actions={[
          {
            label: t('alarm.manualEntry'),
            icon: <PlusIcon />,
            permission: alarmPerm.alarmAdd,
            select: 'none',
            onClick: () => setEntering(true),
          },
          {
            label: t('alarm.ack'),
            permission: alarmPerm.alarmAck,
            select: 'some',
            variant: 'soft',
            onClick: (rows) => bulk('alarm.ack', rows),
          },
          {
            label: t('alarm.process'),
            permission: alarmPerm.alarmProcess,
            select: 'some',
            variant: 'soft',
            onClick: (rows) => setNoting({ kind: 'process', rows }),
          },
          ...(tab === 'current'
            ? [
                {
                  label: t('alarm.clear'),
                  permission: alarmPerm.alarmClear,
                  select: 'some' as const,
                  color: 'red' as const,
                  onClick: (rows: AlarmRow[]) =>
                    change(
                      async () => reportBulk(t, await callRoute('alarm.clear', { body: { ids: rows.map((r) => r.id) } })),
                      t('alarm.done'),
                      {
                        message: t('alarm.clearQuestion', { count: rows.length }),
                        danger: true,
                        confirmLabel: t('alarm.clear'),
                      },
                    ),
                },
              ]
            : []),
        ]}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={alarmPerm.alarmList} label={t('alarm.details')} onClick={() => show(row.id)} />
            {row.ticketId && can(user, alarmPerm.alarmTicket) ? (
              <PermittedRowButton
                permission={alarmPerm.alarmTicket}
                label={t('alarm.closeTicket')}
                onClick={() => void change(() => callRoute('alarm.closeTicket', { body: { id: row.id } }), t('alarm.done'))}
              />
            ) : (
              <PermittedRowButton
                permission={alarmPerm.alarmTicket}
                label={t('alarm.openTicket')}
                onClick={() => setNoting({ kind: 'ticket', rows: [row] })}
              />
            )}
          </>
        )}
      />
      <AlarmDetailDialog alarmId={shown} onClose={() => show(null)} />
      <ManualEntryDialog open={entering} onClose={() => setEntering(false)} />
      <NoteDialog target={noting} onClose={() => setNoting(null)} />
    </>
  );
}
