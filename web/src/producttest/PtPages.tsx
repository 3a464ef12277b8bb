import './i18n.ts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Badge, Box, Button, Callout, Checkbox, Dialog, Flex, Heading, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { ptBatchFields, ptConfigCreateBody, ptIccidBody, ptOperations, ptPerm as p, ptStatuses } from '@iot/contracts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { downloadRoute } from '../fleet/download.ts';
import { crudActions, labelled, PermittedRowButton, useBulkDelete, useListChange, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, validate } from '../ui/form.tsx';
import { notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';

type ConfigRow = Awaited<ReturnType<typeof callRoute<'ptConfig.list'>>>['rows'][number];
type BatchRow = Awaited<ReturnType<typeof callRoute<'ptBatch.list'>>>['rows'][number];
type IccidRow = Awaited<ReturnType<typeof callRoute<'ptIccid.list'>>>['rows'][number];
type DeviceRow = Awaited<ReturnType<typeof callRoute<'production.devices'>>>['rows'][number];
type ReportRow = Awaited<ReturnType<typeof callRoute<'ptReport.list'>>>['rows'][number];
type OperationRow = Awaited<ReturnType<typeof callRoute<'ptOperation.list'>>>['rows'][number];
type BindingRow = Awaited<ReturnType<typeof callRoute<'ptBinding.list'>>>['rows'][number];
type Check = ReportRow['checks'][number];

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const statusColour = { completed: 'green', returned: 'orange', untested: 'gray' } as Record<string, 'green' | 'orange' | 'gray'>;

function TestStatus({ value }: { value: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={statusColour[value] ?? 'blue'} variant="soft">
      {t(`pt.statuses.${value}`)}
    </Badge>
  );
}
function Passed({ value }: { value: boolean | null }) {
  const { t } = useTranslation();
  if (value === null) return null;
  return (
    <Badge color={value ? 'green' : 'red'} variant="soft">
      {t(value ? 'pt.passed' : 'pt.failed')}
    </Badge>
  );
}

/** Runs a step, then says it worked with the spec's notice (§8) or shows why not; answers whether it did. */
async function act(work: () => Promise<unknown>, success: string): Promise<boolean> {
  try {
    await work();
    notice.success(success);
    return true;
  } catch (error) {
    notice.error(messageOf(error));
    return false;
  }
}

// ---------------------------------------------------------------- pickers

function useConfigs() {
  return useQuery({ queryKey: ['ptConfigOptions'], queryFn: () => callRoute('ptConfig.list', { query: { pageSize: 500 } }), retry: false });
}
function useBatches() {
  return useQuery({ queryKey: ['ptBatchOptions'], queryFn: () => callRoute('ptBatch.list', { query: { pageSize: 500 } }), retry: false });
}

/** The configuration a screen works under: the first one until another is picked; an empty state when there is none. */
function ConfigPicker({ children }: { children: (config: ConfigRow) => ReactNode }) {
  const { t } = useTranslation();
  const configs = useConfigs();
  const [picked, setPicked] = useState<string | null>(null);
  const rows = configs.data?.rows ?? [];
  const config = rows.find((c) => c.id === picked) ?? rows[0];
  if (configs.isLoading) return null;
  if (configs.isError) return <Callout.Root color="red">{messageOf(configs.error)}</Callout.Root>;
  if (!config)
    return (
      <Callout.Root color="gray" data-testid="pt-empty">
        <Callout.Text>{t('pt.noConfig')}</Callout.Text>
      </Callout.Root>
    );
  return (
    <Flex direction="column" gap="3">
      <Flex gap="3" align="center" style={{ maxWidth: 520 }}>
        <Text size="2" weight="medium" style={{ whiteSpace: 'nowrap' }}>
          {t('pt.configLabel')}
        </Text>
        <SelectInput
          name="configId"
          value={config.id}
          onChange={setPicked}
          options={rows.map((c) => ({ value: c.id, label: `${c.alias} (${c.productName} / ${c.productCode})` }))}
        />
      </Flex>
      {children(config)}
    </Flex>
  );
}

// ---------------------------------------------------------------- test configurations

const CONFIGS = 'ptConfigs';
const emptyConfig = {
  id: '',
  alias: '',
  productId: '',
  batchId: '',
  qcPermission: true,
  username: '',
  password: '',
  iccidCheck: false,
  parameters: '',
  upgradeFileId: '',
  qcTesterId: '',
  remark: '',
};

function ConfigDialog({ editing, onClose }: { editing: ConfigRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const products = useQuery({
    queryKey: ['ptProducts'],
    queryFn: () => callRoute('product.list', { query: { pageSize: 500 } }),
    enabled: editing !== null,
    retry: false,
  });
  const users = useQuery({
    queryKey: ['ptUsers'],
    queryFn: () => callRoute('user.list', { query: { pageSize: 500 } }),
    enabled: editing !== null,
    retry: false,
  });
  const batches = useBatches();
  const { form, run, done, dialog } = useRecordDialog<typeof emptyConfig, ConfigRow | 'new'>({
    editing,
    empty: emptyConfig,
    queryKey: CONFIGS,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            id: e.id,
            alias: e.alias,
            productId: e.productId,
            batchId: text(e.batchId),
            qcPermission: e.qcPermission,
            username: text(e.username),
            password: '',
            iccidCheck: e.iccidCheck,
            parameters: e.parameters.join(', '),
            upgradeFileId: text(e.upgradeFileId),
            qcTesterId: text(e.qcTesterId),
            remark: text(e.remark),
          }
        : emptyConfig,
  });
  const v = form.values;
  const submit = async () => {
    const body = {
      alias: v.alias,
      productId: v.productId,
      batchId: v.batchId || null,
      qcPermission: v.qcPermission,
      username: v.username || null,
      iccidCheck: v.iccidCheck,
      parameters: v.parameters
        .split(/[,，\s]+/)
        .map((s) => s.trim())
        .filter(Boolean),
      upgradeFileId: v.upgradeFileId || null,
      qcTesterId: v.qcTesterId || null,
      remark: v.remark || null,
      ...(v.password ? { password: v.password } : {}),
    };
    const checked = validate(ptConfigCreateBody, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (creating) await callRoute('ptConfig.create', { body });
      else await callRoute('ptConfig.update', { body: { ...body, id: v.id } });
      await done(t(creating ? 'pt.notices.configAdded' : 'pt.notices.configModified'));
    });
  };
  const none = { value: '', label: t('pt.none') };
  return (
    <FormDialog
      {...dialog}
      width="640px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('pt.objects.config') })}
      onSubmit={() => void submit()}
    >
      <div className="form-grid two">
        <Field label={t('pt.alias')} required error={form.errors.alias}>
          <TextField.Root name="alias" value={v.alias} onChange={(e) => form.set('alias', e.target.value)} />
        </Field>
        <Field label={t('pt.product')} required error={form.errors.productId}>
          <SelectInput
            name="productId"
            value={v.productId || null}
            onChange={(value) => form.set('productId', value)}
            placeholder={t('common.selectPlaceholder')}
            options={(products.data?.rows ?? []).map((r) => ({ value: r.id, label: `${r.name} (${r.code})` }))}
          />
        </Field>
        <Field label={t('pt.batch')} error={form.errors.batchId}>
          <SelectInput
            name="batchId"
            value={v.batchId}
            onChange={(value) => form.set('batchId', value)}
            options={[none, ...(batches.data?.rows ?? []).map((b) => ({ value: b.id, label: b.batchNo }))]}
          />
        </Field>
        <Field label={t('pt.qcTester')} error={form.errors.qcTesterId}>
          <SelectInput
            name="qcTesterId"
            value={v.qcTesterId}
            onChange={(value) => form.set('qcTesterId', value)}
            options={[none, ...(users.data?.rows ?? []).map((u) => ({ value: u.id, label: u.username }))]}
          />
        </Field>
        <Field label={t('pt.username')} error={form.errors.username}>
          <TextField.Root name="username" value={v.username} onChange={(e) => form.set('username', e.target.value)} />
        </Field>
        <Field label={t(creating ? 'pt.password' : 'pt.passwordKeep')} error={form.errors.password}>
          <TextField.Root name="password" type="password" value={v.password} onChange={(e) => form.set('password', e.target.value)} />
        </Field>
        <Field label={t('pt.upgradeFile')} error={form.errors.upgradeFileId}>
          <TextField.Root name="upgradeFileId" value={v.upgradeFileId} onChange={(e) => form.set('upgradeFileId', e.target.value)} />
        </Field>
        <Field label={t('pt.remark')} error={form.errors.remark}>
          <TextField.Root name="remark" value={v.remark} onChange={(e) => form.set('remark', e.target.value)} />
        </Field>
      </div>
      <Field label={t('pt.parameters')} error={form.errors.parameters}>
        <TextField.Root
          name="parameters"
          value={v.parameters}
          placeholder="temperature, voltage"
          onChange={(e) => form.set('parameters', e.target.value)}
        />
      </Field>
      <Flex gap="5">
        <Flex gap="2" align="center" asChild>
          <label>
            <Checkbox name="qcPermission" checked={v.qcPermission} onCheckedChange={(c) => form.set('qcPermission', c === true)} />
            {t('pt.qcPermission')}
          </label>
        </Flex>
        <Flex gap="2" align="center" asChild>
          <label>
            <Checkbox name="iccidCheck" checked={v.iccidCheck} onCheckedChange={(c) => form.set('iccidCheck', c === true)} />
            {t('pt.iccidCheck')}
          </label>
        </Flex>
      </Flex>
    </FormDialog>
  );
}

/** Test configurations (spec §3 PT config): the config added/modified notices, deletes after a confirm (§8). */
export function PtConfigPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<ConfigRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<ConfigRow>(CONFIGS, 'ptConfig.delete', t('pt.objects.config'), (r) => r.alias);
  const yesNo = (b: boolean) => t(b ? 'pt.yes' : 'pt.no');
  const columns: ListColumn<ConfigRow>[] = [
    { id: 'alias', header: t('pt.alias'), value: (r) => r.alias, sortable: true, width: 140 },
    { id: 'productName', header: t('pt.productName'), value: (r) => r.productName, width: 120 },
    { id: 'productCode', header: t('pt.productCode'), value: (r) => r.productCode, width: 110 },
    { id: 'batchNo', header: t('pt.batch'), value: (r) => r.batchNo, width: 110 },
    { id: 'qcPermission', header: t('pt.qcShort'), value: (r) => yesNo(r.qcPermission), width: 70 },
    { id: 'username', header: t('pt.username'), value: (r) => r.username, width: 100 },
    { id: 'hasPassword', header: t('pt.hasPassword'), value: (r) => yesNo(r.hasPassword), width: 90 },
    { id: 'iccidCheck', header: t('pt.iccid'), value: (r) => yesNo(r.iccidCheck), width: 70 },
    { id: 'boundUsers', header: t('pt.boundUsers'), value: (r) => r.boundUserNames.join(', '), width: 130 },
    {
      id: 'parameters',
      header: t('pt.parametersShort'),
      value: (r) => (r.parameters.length ? r.parameters.join(', ') : t('pt.allParameters')),
      width: 140,
    },
    { id: 'upgradeFileId', header: t('pt.upgradeFile'), value: (r) => r.upgradeFileId, width: 130 },
    { id: 'qcTester', header: t('pt.qcTester'), value: (r) => r.qcTesterName, width: 100 },
    { id: 'creator', header: t('pt.creator'), value: (r) => r.creator, width: 100 },
    { id: 'createTime', header: t('pt.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<ConfigRow>
        queryKey={CONFIGS}
        route="ptConfig.list"
        exportName={t('pt.objects.config')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'alias', label: t('pt.alias') }]}
        actions={crudActions<ConfigRow>(
          t,
          { add: p.configAdd, edit: p.configEdit, delete: p.configDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <ConfigDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}

// ---------------------------------------------------------------- checks and reports

function ChecksTable({ checks }: { checks: Check[] }) {
  const { t } = useTranslation();
  const range = (c: Check) => (c.min == null && c.max == null ? '' : `${c.min ?? ''} ~ ${c.max ?? ''}`);
  return (
    <Table.Root size="1" variant="surface">
      <Table.Header>
        <Table.Row>
          {(['parameter', 'identifier', 'value', 'range', 'unit', 'check'] as const).map((k) => (
            <Table.ColumnHeaderCell key={k}>{t(`pt.${k}`)}</Table.ColumnHeaderCell>
          ))}
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {checks.map((c) => (
          <Table.Row key={c.identifier}>
            <Table.Cell>{c.name}</Table.Cell>
            <Table.Cell>{c.identifier}</Table.Cell>
            <Table.Cell>{text(c.value)}</Table.Cell>
            <Table.Cell>{range(c)}</Table.Cell>
            <Table.Cell>{text(c.unit)}</Table.Cell>
            <Table.Cell>
              <Badge color={c.ok ? 'green' : 'red'} variant="soft">
                {t(`pt.faults.${c.fault ?? 'ok'}`)}
              </Badge>
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}

function ResultDialog({
  title,
  result,
  onClose,
}: {
  title: string;
  result: { passed: boolean; checks: Check[] } | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog.Root open={result !== null} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="720px" aria-describedby={undefined}>
        <Dialog.Title>{title}</Dialog.Title>
        {result && (
          <Flex direction="column" gap="3">
            <Flex gap="2" align="center">
              <Text size="2">{t('pt.result')}</Text>
              <Passed value={result.passed} />
            </Flex>
            <ChecksTable checks={result.checks} />
          </Flex>
        )}
        <Flex justify="end" mt="4">
          <Button variant="soft" color="gray" onClick={onClose}>
            {t('common.close')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

function reportPage(kind: 'pt' | 'qc') {
  const list = kind === 'pt' ? 'ptReport.list' : 'qcReport.list';
  const exportRoute = kind === 'pt' ? 'ptReport.export' : 'qcReport.export';
  const exportPerm = kind === 'pt' ? p.ptReportExport : p.qcReportExport;
  return function ReportPage() {
    const { t } = useTranslation();
    const [viewing, setViewing] = useState<ReportRow | null>(null);
    const download = (r: ReportRow, format: 'xlsx' | 'pdf') =>
      void downloadRoute(exportRoute, { id: r.id, format }, `${kind}-report-${r.sn}.${format}`).catch((e: unknown) =>
        notice.error(messageOf(e)),
      );
    const columns: ListColumn<ReportRow>[] = [
      { id: 'sn', header: t('pt.sn'), value: (r) => r.sn, sortable: true, width: 130 },
      { id: 'deviceName', header: t('pt.deviceName'), value: (r) => r.deviceName, width: 130 },
      { id: 'alias', header: t('pt.objects.config'), value: (r) => r.alias, width: 120 },
      { id: 'productName', header: t('pt.productName'), value: (r) => r.productName, width: 110 },
      { id: 'productCode', header: t('pt.productCode'), value: (r) => r.productCode, width: 100 },
      {
        id: 'passed',
        header: t('pt.result'),
        value: (r) => t(r.passed ? 'pt.passed' : 'pt.failed'),
        cell: (r) => <Passed value={r.passed} />,
        width: 90,
      },
      { id: 'tester', header: t('pt.tester'), value: (r) => r.tester, width: 100 },
      { id: 'testTime', header: t('pt.testTime'), value: (r) => formatDate(r.testTime, true), width: 150 },
      { id: 'createTime', header: t('pt.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 160 },
    ];
    return (
      <>
        <ListPage<ReportRow>
          queryKey={`${kind}Reports`}
          route={list}
          exportName={t(kind === 'pt' ? 'pt.report' : 'pt.qcReport')}
          columns={columns}
          selectable={false}
          defaultSort={{ sort: 'createTime', order: 'desc' }}
          filters={[
            { name: 'sn', label: t('pt.sn') },
            {
              name: 'passed',
              label: t('pt.result'),
              type: 'select',
              options: [
                { value: 'true', label: t('pt.passed') },
                { value: 'false', label: t('pt.failed') },
              ],
            },
          ]}
          rowActions={(r) => (
            <Flex gap="2">
              <Button size="1" variant="ghost" onClick={() => setViewing(r)}>
                {t('pt.actions.view')}
              </Button>
              <PermittedRowButton permission={exportPerm} label={t('pt.actions.exportXlsx')} onClick={() => download(r, 'xlsx')} />
              <PermittedRowButton permission={exportPerm} label={t('pt.actions.exportPdf')} onClick={() => download(r, 'pdf')} />
            </Flex>
          )}
        />
        <ResultDialog
          title={viewing ? `${t(kind === 'pt' ? 'pt.report' : 'pt.qcReport')} · ${viewing.sn}` : ''}
          result={viewing}
          onClose={() => setViewing(null)}
        />
      </>
    );
  };
}
/** Production test reports: viewed, exported as XLSX and PDF. */
export const PtReportPage = reportPage('pt');
/** Quality test reports: viewed, exported as XLSX and PDF. */
export const QcReportPage = reportPage('qc');

// ---------------------------------------------------------------- production and quality test

function SnDialog({ target, onClose }: { target: { config: ConfigRow; device: DeviceRow } | null; onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefresh('ptDevices');
  const [sn, setSn] = useState('');
  const [iccid, setIccid] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if (!target) return;
    setBusy(true);
    const body = { configId: target.config.id, deviceId: target.device.deviceId, sn, ...(iccid ? { iccid } : {}) };
    if (await act(() => callRoute('production.sn', { body }), t('pt.notices.snSet'))) {
      await refresh();
      setSn('');
      setIccid('');
      onClose();
    }
    setBusy(false);
  };
  return (
    <FormDialog
      open={target !== null}
      dirty={false}
      busy={busy}
      onClose={onClose}
      title={`${t('pt.actions.sn')} · ${target?.device.sn ?? ''}`}
      onSubmit={() => void submit()}
    >
      <Field label={t('pt.productSn')} required>
        <TextField.Root name="sn" value={sn} onChange={(e) => setSn(e.target.value)} />
      </Field>
      {target?.config.iccidCheck && (
        <Field label={t('pt.iccid')} required>
          <TextField.Root name="iccid" value={iccid} onChange={(e) => setIccid(e.target.value)} />
        </Field>
      )}
    </FormDialog>
  );
}

function ReasonDialog({
  open,
  title,
  label,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  label: string;
  onSubmit: (reason: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <FormDialog open={open} dirty={false} onClose={onClose} title={title} onSubmit={() => void onSubmit(reason).then(() => setReason(''))}>
      <Field label={label}>
        <TextField.Root name="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
    </FormDialog>
  );
}

function deviceColumns(t: TFunction): ListColumn<DeviceRow>[] {
  return [
    { id: 'name', header: t('pt.deviceName'), value: (r) => r.name, width: 140 },
    { id: 'sn', header: t('pt.sn'), value: (r) => r.sn, width: 130 },
    {
      id: 'testStatus',
      header: t('pt.testStatus'),
      value: (r) => t(`pt.statuses.${r.testStatus}`),
      cell: (r) => <TestStatus value={r.testStatus} />,
      width: 150,
    },
    {
      id: 'passed',
      header: t('pt.result'),
      value: (r) => (r.passed === null ? '' : t(r.passed ? 'pt.passed' : 'pt.failed')),
      cell: (r) => <Passed value={r.passed} />,
      width: 90,
    },
    {
      id: 'deviceStatus',
      header: t('pt.deviceStatus'),
      value: (r) => t(`pt.online.${r.deviceStatus === 'online' ? 'online' : 'offline'}`),
      width: 90,
    },
    { id: 'productSn', header: t('pt.productSn'), value: (r) => r.productSn, width: 120 },
    { id: 'iccid', header: t('pt.iccid'), value: (r) => r.iccid, width: 180 },
    { id: 'updateTime', header: t('pt.updateTime'), value: (r) => (r.updateTime ? formatDate(r.updateTime, true) : ''), width: 170 },
  ];
}
const statusFilter = (t: TFunction) => ({
  name: 'testStatus',
  label: t('pt.testStatus'),
  type: 'select' as const,
  options: labelled(t, 'pt.statuses', ptStatuses),
});

function ProductionDevices({ config }: { config: ConfigRow }) {
  const { t } = useTranslation();
  const me = useSession();
  const change = useListChange('ptDevices');
  const refreshOperations = useRefresh('ptOperations');
  const [result, setResult] = useState<{ sn: string; passed: boolean; checks: Check[] } | null>(null);
  const [snFor, setSnFor] = useState<DeviceRow | null>(null);
  const [returning, setReturning] = useState<DeviceRow | null>(null);
  const body = (d: DeviceRow) => ({ configId: config.id, deviceId: d.deviceId });
  const step = async (work: () => Promise<unknown>, success: string, ask?: string) => {
    await change(work, success, ask ? { message: ask } : undefined);
    await refreshOperations();
  };
  const actions = (d: DeviceRow) => {
    const s = d.testStatus;
    const canTest = ['untested', 'tested', 'reported', 'returned'].includes(s);
    const buttons: Array<[string, string, () => void]> = [];
    if (canTest)
      buttons.push([
        p.productionTest,
        t('pt.actions.test'),
        () =>
          void step(async () => {
            const run = await callRoute('production.test', { body: body(d) });
            setResult({ sn: d.sn, ...run });
          }, t('pt.notices.testIssued')),
      ]);
    if (s === 'tested')
      buttons.push([
        p.productionReport,
        t('pt.actions.report'),
        () => void step(() => callRoute('production.report', { body: body(d) }), t('pt.notices.reportGenerated')),
      ]);
    if (s === 'reported' && d.passed) buttons.push([p.productionSn, t('pt.actions.sn'), () => setSnFor(d)]);
    if (canTest)
      buttons.push([
        p.productionUpgrade,
        t('pt.actions.upgrade'),
        () =>
          config.upgradeFileId
            ? void step(
                () => callRoute('production.upgrade', { body: body(d) }),
                t('pt.notices.upgraded'),
                t('pt.confirms.upgrade', { sn: d.sn, file: config.upgradeFileId }),
              )
            : notice.warning(t('pt.pickUpgrade')),
      ]);
    if (s === 'reported')
      buttons.push([
        p.productionSubmit,
        t('pt.actions.submit'),
        () =>
          void step(
            () => callRoute('production.submit', { body: body(d) }),
            t('pt.notices.submitted'),
            t('pt.confirms.submit', { sn: d.sn }),
          ),
      ]);
    if (s === 'submitted') buttons.push([p.productionReturn, t('pt.actions.return'), () => setReturning(d)]);
    return (
      <Flex gap="2" wrap="wrap">
        {buttons
          .filter(([permission]) => can(me, permission))
          .map(([, label, onClick]) => (
            <Button key={label} size="1" variant="ghost" onClick={onClick}>
              {label}
            </Button>
          ))}
      </Flex>
    );
  };
  return (
    <>
      <ListPage<DeviceRow>
        queryKey="ptDevices"
        route="production.devices"
        params={{ configId: config.id }}
        rowId={(r) => r.deviceId}
        exportName={t('pt.testStatus')}
        columns={deviceColumns(t)}
        selectable={false}
        filters={[{ name: 'sn', label: t('pt.sn') }, statusFilter(t)]}
        rowActions={actions}
      />
      <ResultDialog title={result ? `${t('pt.testResult')} · ${result.sn}` : ''} result={result} onClose={() => setResult(null)} />
      <SnDialog target={snFor ? { config, device: snFor } : null} onClose={() => setSnFor(null)} />
      <ReasonDialog
        open={returning !== null}
        title={`${t('pt.actions.return')} · ${returning?.sn ?? ''}`}
        label={t('pt.returnReason')}
        onClose={() => setReturning(null)}
        onSubmit={async (reason) => {
          const d = returning!;
          setReturning(null);
          await step(() => callRoute('production.return', { body: { ...body(d), reason: reason || null } }), t('pt.notices.returned'));
        }}
      />
    </>
  );
}

function OperationRecords() {
  const { t } = useTranslation();
  const columns: ListColumn<OperationRow>[] = [
    { id: 'sn', header: t('pt.sn'), value: (r) => r.sn, sortable: true, width: 130 },
    { id: 'productName', header: t('pt.productName'), value: (r) => r.productName, width: 120 },
    { id: 'productCode', header: t('pt.productCode'), value: (r) => r.productCode, width: 110 },
    { id: 'operation', header: t('pt.operations.operation'), value: (r) => t(`pt.operations.names.${r.operation}`), width: 120 },
    { id: 'detail', header: t('pt.operations.detail'), value: (r) => r.detail, width: 160 },
    { id: 'user', header: t('pt.operations.user'), value: (r) => r.user, width: 100 },
    { id: 'createTime', header: t('pt.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 160 },
  ];
  return (
    <Box mt="4">
      <Heading size="3" mb="2">
        {t('pt.operations.title')}
      </Heading>
      <ListPage<OperationRow>
        queryKey="ptOperations"
        route="ptOperation.list"
        exportName={t('pt.operations.title')}
        columns={columns}
        selectable={false}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'sn', label: t('pt.sn') },
          {
            name: 'operation',
            label: t('pt.operations.operation'),
            type: 'select',
            options: labelled(t, 'pt.operations.names', ptOperations),
          },
          { name: 'user', label: t('pt.operations.user') },
        ]}
      />
    </Box>
  );
}

/** Production test (spec §2, §4): test, generate report, set SN, upgrade, submit, return; the operation records below. */
export function ProductionTestPage() {
  const me = useSession();
  return (
    <>
      <ConfigPicker>{(config) => <ProductionDevices key={config.id} config={config} />}</ConfigPicker>
      {can(me, p.operationList) && <OperationRecords />}
    </>
  );
}

function QualityDevices({ config }: { config: ConfigRow }) {
  const { t } = useTranslation();
  const me = useSession();
  const change = useListChange('ptQcDevices');
  const [result, setResult] = useState<{ sn: string; passed: boolean; checks: Check[] } | null>(null);
  const [returning, setReturning] = useState<DeviceRow | null>(null);
  const body = (d: DeviceRow) => ({ configId: config.id, deviceId: d.deviceId });
  const actions = (d: DeviceRow) => {
    const s = d.testStatus;
    const buttons: Array<[string, string, () => void]> = [];
    if (s === 'submitted' || s === 'qcTested')
      buttons.push([
        p.qualityTest,
        t('pt.actions.qcTest'),
        () =>
          void change(async () => {
            const run = await callRoute('quality.test', { body: body(d) });
            setResult({ sn: d.sn, ...run });
          }, t('pt.notices.qcTested')),
      ]);
    if (s === 'qcTested')
      buttons.push([
        p.qualityFinish,
        t('pt.actions.finish'),
        () => void change(() => callRoute('quality.finish', { body: body(d) }), t('pt.notices.qcFinished')),
      ]);
    if (s === 'qcFinished')
      buttons.push([
        p.qualitySubmit,
        t('pt.actions.qcSubmit'),
        () =>
          void change(() => callRoute('quality.submit', { body: body(d) }), t('pt.notices.qcSubmitted'), {
            message: t('pt.confirms.submit', { sn: d.sn }),
          }),
      ]);
    if (['submitted', 'qcTested', 'qcFinished'].includes(s))
      buttons.push([p.qualityReturn, t('pt.actions.qcReturn'), () => setReturning(d)]);
    return (
      <Flex gap="2" wrap="wrap">
        {buttons
          .filter(([permission]) => can(me, permission))
          .map(([, label, onClick]) => (
            <Button key={label} size="1" variant="ghost" onClick={onClick}>
              {label}
            </Button>
          ))}
      </Flex>
    );
  };
  return (
    <>
      <ListPage<DeviceRow>
        queryKey="ptQcDevices"
        route="quality.devices"
        params={{ configId: config.id }}
        rowId={(r) => r.deviceId}
        exportName={t('pt.testStatus')}
        columns={deviceColumns(t)}
        selectable={false}
        filters={[{ name: 'sn', label: t('pt.sn') }, statusFilter(t)]}
        rowActions={actions}
      />
      <ResultDialog title={result ? `${t('pt.testResult')} · ${result.sn}` : ''} result={result} onClose={() => setResult(null)} />
      <ReasonDialog
        open={returning !== null}
        title={`${t('pt.actions.qcReturn')} · ${returning?.sn ?? ''}`}
        label={t('pt.returnReason')}
        onClose={() => setReturning(null)}
        onSubmit={async (reason) => {
          const d = returning!;
          setReturning(null);
          await change(() => callRoute('quality.return', { body: { ...body(d), reason: reason || null } }), t('pt.notices.returned'));
        }}
      />
    </>
  );
}

/** Quality test (spec §2, §4): QC test, finish, submit, return. */
export function QualityTestPage() {
  return <ConfigPicker>{(config) => <QualityDevices key={config.id} config={config} />}</ConfigPicker>;
}

// ---------------------------------------------------------------- batches

const BATCHES = 'ptBatches';
const emptyBatch = { id: '', batchNo: '', quantity: '', remark: '' };

function BatchDialog({ editing, onClose }: { editing: BatchRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<typeof emptyBatch, BatchRow | 'new'>({
    editing,
    empty: emptyBatch,
    queryKey: BATCHES,
    onClose,
    valuesOf: (e) => (e && e !== 'new' ? { id: e.id, batchNo: e.batchNo, quantity: text(e.quantity), remark: text(e.remark) } : emptyBatch),
  });
  const v = form.values;
  const submit = async () => {
    const body = { batchNo: v.batchNo, quantity: v.quantity === '' ? null : Number(v.quantity), remark: v.remark || null };
    const checked = validate(ptBatchFields, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (creating) await callRoute('ptBatch.create', { body });
      else await callRoute('ptBatch.update', { body: { ...body, id: v.id } });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('pt.objects.batch') })}
      onSubmit={() => void submit()}
    >
      {(['batchNo', 'quantity', 'remark'] as const).map((k) => (
        <Field key={k} label={t(`pt.${k}`)} required={k === 'batchNo'} error={form.errors[k]}>
          <TextField.Root name={k} value={v[k]} onChange={(e) => form.set(k, e.target.value)} />
        </Field>
      ))}
    </FormDialog>
  );
}

/** Production batches. */
export function BatchPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<BatchRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<BatchRow>(BATCHES, 'ptBatch.delete', t('pt.objects.batch'), (r) => r.batchNo);
  return (
    <>
      <ListPage<BatchRow>
        queryKey={BATCHES}
        route="ptBatch.list"
        exportName={t('pt.objects.batch')}
        columns={[
          { id: 'batchNo', header: t('pt.batchNo'), value: (r) => r.batchNo, sortable: true, width: 160 },
          { id: 'quantity', header: t('pt.quantity'), value: (r) => r.quantity, width: 100 },
          { id: 'remark', header: t('pt.remark'), value: (r) => r.remark, width: 200 },
          { id: 'createTime', header: t('pt.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 160 },
        ]}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'batchNo', label: t('pt.batchNo') }]}
        actions={crudActions<BatchRow>(
          t,
          { add: p.batchAdd, edit: p.batchEdit, delete: p.batchDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <BatchDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}

// ---------------------------------------------------------------- ICCIDs

const ICCIDS = 'ptIccids';

function IccidDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const batches = useBatches();
  const { form, run, done, dialog } = useRecordDialog<{ iccid: string; batchId: string; remark: string }, true>({
    editing: open ? true : null,
    empty: { iccid: '', batchId: '', remark: '' },
    queryKey: ICCIDS,
    onClose,
    valuesOf: () => ({ iccid: '', batchId: '', remark: '' }),
  });
  const v = form.values;
  const submit = async () => {
    const body = { iccid: v.iccid, batchId: v.batchId || null, remark: v.remark || null };
    const checked = validate(ptIccidBody, body, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute('ptIccid.create', { body });
      await done(t('pt.notices.iccidAdded'));
    });
  };
  return (
    <FormDialog {...dialog} title={t('common.addObject', { object: t('pt.objects.iccid') })} onSubmit={() => void submit()}>
      <Field label={t('pt.iccid')} required error={form.errors.iccid}>
        <TextField.Root
          name="iccid"
          value={v.iccid}
          placeholder="89860000000000000001"
          onChange={(e) => form.set('iccid', e.target.value)}
        />
      </Field>
      <Field label={t('pt.batch')}>
        <SelectInput
          name="batchId"
          value={v.batchId}
          onChange={(value) => form.set('batchId', value)}
          options={[{ value: '', label: t('pt.none') }, ...(batches.data?.rows ?? []).map((b) => ({ value: b.id, label: b.batchNo }))]}
        />
      </Field>
      <Field label={t('pt.remark')}>
        <TextField.Root name="remark" value={v.remark} onChange={(e) => form.set('remark', e.target.value)} />
      </Field>
    </FormDialog>
  );
}

function ImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const batches = useBatches();
  const refresh = useRefresh(ICCIDS);
  const [file, setFile] = useState<File | null>(null);
  const [batchId, setBatchId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<Awaited<ReturnType<typeof callRoute<'ptIccid.import'>>> | null>(null);
  const close = () => {
    if (busy) return;
    setFile(null);
    setResult(null);
    setError(null);
    onClose();
  };
  const upload = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const type = file.name.toLowerCase().endsWith('.xlsx')
        ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
        : 'text/csv';
      const answer = await callRoute(
        'ptIccid.import',
        { body: new Blob([file], { type }), query: batchId ? { batchId } : {} },
        { noTimeout: true },
      );
      setResult(answer);
      if (answer.created > 0) notice.success(t('pt.notices.iccidAdded'));
      await refresh();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open={open} onOpenChange={(o) => !o && close()}>
      <Dialog.Content maxWidth="600px" aria-describedby={undefined}>
        <Dialog.Title>{t('pt.importTitle')}</Dialog.Title>
        <Text as="p" size="2" color="gray" mb="3">
          {t('pt.importHint')}
        </Text>
        <Flex direction="column" gap="3">
          <Button
            variant="soft"
            style={{ alignSelf: 'flex-start' }}
            onClick={() =>
              void downloadRoute('ptIccid.template', {}, 'iccid-template.csv').catch((e: unknown) => notice.error(messageOf(e)))
            }
          >
            {t('pt.actions.template')}
          </Button>
          <Field label={t('pt.batch')}>
            <SelectInput
              name="batchId"
              value={batchId}
              onChange={setBatchId}
              options={[{ value: '', label: t('pt.none') }, ...(batches.data?.rows ?? []).map((b) => ({ value: b.id, label: b.batchNo }))]}
            />
          </Field>
          <Field label={t('pt.pickFile')}>
            <input type="file" name="file" accept=".csv,.xlsx" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          </Field>
          {error && <Callout.Root color="red">{error}</Callout.Root>}
          {result && (
            <Box data-testid="iccid-import-result">
              <Text as="p" size="2" mb="2">
                {t('pt.importResult', result)}
              </Text>
              {result.faults.length > 0 && (
                <Table.Root size="1" variant="surface">
                  <Table.Header>
                    <Table.Row>
                      <Table.ColumnHeaderCell>{t('pt.row')}</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>{t('pt.iccid')}</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>{t('pt.reason')}</Table.ColumnHeaderCell>
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {result.faults.map((f) => (
                      <Table.Row key={f.row}>
                        <Table.Cell>{f.row}</Table.Cell>
                        <Table.Cell>{text(f.iccid)}</Table.Cell>
                        <Table.Cell>{f.message}</Table.Cell>
                      </Table.Row>
                    ))}
                  </Table.Body>
                </Table.Root>
              )}
            </Box>
          )}
        </Flex>
        <Flex gap="3" mt="4" justify="end">
          <Button variant="soft" color="gray" onClick={close}>
            {t('common.close')}
          </Button>
          <Button loading={busy} disabled={!file} onClick={() => void upload()}>
            {t('pt.actions.import')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** ICCIDs: added one by one or imported (CSV/XLSX, a report per refused row), deleted after the confirm of spec §8. */
export function IccidPage() {
  const { t } = useTranslation();
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const deleteRows = useBulkDelete<IccidRow>(ICCIDS, 'ptIccid.delete', t('pt.objects.iccid'), (r) => r.iccid, t('pt.notices.iccidDeleted'));
  return (
    <>
      <ListPage<IccidRow>
        queryKey={ICCIDS}
        route="ptIccid.list"
        exportName={t('pt.objects.iccid')}
        columns={[
          { id: 'iccid', header: t('pt.iccid'), value: (r) => r.iccid, sortable: true, width: 200 },
          { id: 'batchNo', header: t('pt.batch'), value: (r) => r.batchNo, width: 120 },
          { id: 'deviceSn', header: t('pt.paired'), value: (r) => r.deviceSn, width: 140 },
          { id: 'remark', header: t('pt.remark'), value: (r) => r.remark, width: 160 },
          { id: 'createTime', header: t('pt.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 160 },
        ]}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'iccid', label: t('pt.iccid') },
          {
            name: 'paired',
            label: t('pt.paired'),
            type: 'select',
            options: [
              { value: 'true', label: t('pt.pairedFilter.true') },
              { value: 'false', label: t('pt.pairedFilter.false') },
            ],
          },
        ]}
        actions={[
          { label: t('common.add'), permission: p.iccidAdd, select: 'none', onClick: () => setAdding(true) },
          { label: t('pt.actions.import'), permission: p.iccidImport, select: 'none', variant: 'soft', onClick: () => setImporting(true) },
          {
            label: t('common.delete'),
            permission: p.iccidDelete,
            select: 'some',
            color: 'red',
            onClick: deleteRows,
          },
        ]}
      />
      <IccidDialog open={adding} onClose={() => setAdding(false)} />
      <ImportDialog open={importing} onClose={() => setImporting(false)} />
    </>
  );
}

// ---------------------------------------------------------------- user binding

function BindingList({ config }: { config: ConfigRow }) {
  const { t } = useTranslation();
  const change = useListChange('ptBinding');
  const refreshConfigs = useRefresh('ptConfigOptions');
  const ids = (rows: BindingRow[]) => rows.map((r) => r.userId).join(',');
  return (
    <ListPage<BindingRow>
      queryKey="ptBinding"
      route="ptBinding.list"
      params={{ configId: config.id }}
      rowId={(r) => r.userId}
      exportName={t('pt.boundUsers')}
      columns={[
        { id: 'username', header: t('pt.user'), value: (r) => r.username, width: 200 },
        {
          id: 'bound',
          header: t('pt.bound'),
          value: (r) => t(r.bound ? 'pt.yes' : 'pt.no'),
          cell: (r) => (
            <Badge color={r.bound ? 'green' : 'gray'} variant="soft">
              {t(r.bound ? 'pt.yes' : 'pt.no')}
            </Badge>
          ),
          width: 100,
        },
      ]}
      filters={[{ name: 'username', label: t('pt.user') }]}
      actions={[
        {
          label: t('pt.actions.bind'),
          permission: p.bindingBind,
          select: 'some',
          onClick: async (rows) => {
            const done = await change(
              () => callRoute('ptBinding.bind', { body: { configId: config.id, userIds: rows.map((r) => r.userId) } }),
              t('pt.notices.bound'),
            );
            await refreshConfigs();
            return done;
          },
        },
        {
          label: t('pt.actions.unbind'),
          permission: p.bindingUnbind,
          select: 'some',
          color: 'red',
          onClick: async (rows) => {
            const done = await change(
              () => callRoute('ptBinding.unbind', { query: { configId: config.id, userIds: ids(rows) } }),
              t('pt.notices.unbound'),
              { message: t('pt.confirms.unbind', { count: rows.length, names: rows.map((r) => r.username).join(', ') }), danger: true },
            );
            await refreshConfigs();
            return done;
          },
        },
      ]}
    />
  );
}

/** User binding (spec §6): users bound to a configuration run its production steps; bind and unbind with their notices. */
export function UserBindingPage() {
  return <ConfigPicker>{(config) => <BindingList key={config.id} config={config} />}</ConfigPicker>;
}
