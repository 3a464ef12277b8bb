import './i18n.ts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Callout,
  Card,
  Checkbox,
  Code,
  Dialog,
  Flex,
  Progress,
  Table,
  Tabs,
  Text,
  TextArea,
  TextField,
} from '@radix-ui/themes';
import { IMPORT_MAX_BYTES, type DeviceRow } from '@iot/contracts/device/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { ApiError, callRoute, channelUrl, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { PermittedRowButton, useListChange, useListDelete, useRecordDialog } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { display, EMPTY, formatDate, formatLocation } from '../ui/format.ts';
import { useLogNames } from '../system/logNames.ts';
import { ListPage, useRefresh, type ListColumn, type ListParams } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { Ellipsis } from '../ui/Ellipsis.tsx';
import { downloadRoute } from './download.ts';
import { useGroupOptions } from './groups.ts';
import { describeSpec, useProductOptions } from './ProductsPage.tsx';
import { DeviceCommands, Passthrough } from './CommandDialog.tsx';
import { TrendChart } from './TrendChart.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

const DEVICES = 'devices';

const empty = {
  id: '',
  sn: '',
  name: '',
  productId: '',
  groupId: '',
  gatewayId: '',
  lng: '',
  lat: '',
  address: '',
  version: '',
  tags: '',
  remark: '',
};

/** A device secret shown once, with a copy button (ARCHITECTURE.md "API": shown once, rotatable). */
function SecretDialog({ secret, onClose }: { secret: { sn: string; secret: string } | null; onClose: () => void }) {
  const { t } = useTranslation();
  if (!secret) return null;
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="560px" aria-describedby={undefined}>
        <Dialog.Title>
          {t('fleet.secretTitle')} · {secret.sn}
        </Dialog.Title>
        <Callout.Root color="orange" mb="3">
          <Callout.Text>{t('fleet.secretOnce')}</Callout.Text>
        </Callout.Root>
        <Code size="3" style={{ wordBreak: 'break-all' }} data-testid="device-secret">
          {secret.secret}
        </Code>
        <Flex gap="3" mt="4" justify="end">
          <Button
            variant="soft"
            onClick={() => void navigator.clipboard?.writeText(secret.secret).then(() => notice.success(t('fleet.copied')))}
          >
            {t('fleet.copySecret')}
          </Button>
          <Dialog.Close>
            <Button>{t('common.close')}</Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

function DeviceDialog({
  editing,
  onClose,
  onSecret,
  nodeType,
}: {
  editing: DeviceRow | 'new' | null;
  /** The gateways page adds gateways: only their products are offered. */
  nodeType?: 'gateway';
  onClose: () => void;
  onSecret: (s: { sn: string; secret: string }) => void;
}) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const products = useProductOptions();
  const offered = (products.data ?? []).filter((p) => !nodeType || p.row.type === nodeType);
  const groups = useGroupOptions();
  const { form, run, done, dialog } = useRecordDialog({
    editing,
    empty,
    queryKey: DEVICES,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            ...empty,
            id: e.id,
            sn: e.sn,
            name: e.name,
            productId: e.productId,
            groupId: e.groupId ?? '',
            lng: e.lng?.toString() ?? '',
            lat: e.lat?.toString() ?? '',
            address: e.address ?? '',
            version: e.version ?? '',
            tags: e.tags.join(';'),
            remark: e.remark ?? '',
          }
        : empty,
  });
  const v = form.values;
  const submit = async () => {
    const num = (s: string) => (s.trim() === '' ? null : Number(s));
    const common = {
      name: v.name,
      groupId: v.groupId || null,
      location: { lng: num(v.lng), lat: num(v.lat), address: v.address || null },
      version: v.version || null,
      tags: v.tags
        .split(/[;；]/)
        .map((x) => x.trim())
        .filter(Boolean),
      remark: v.remark || null,
    };
    const checked = creating
      ? checkBody('device.create', { ...common, sn: v.sn, productId: v.productId, gatewayId: v.gatewayId || null }, t)
      : checkBody('device.update', { ...common, id: v.id }, t);
    if (!checked.ok) {
      const errors = { ...checked.errors };
      if (errors.location) errors.lng = errors.location;
      return form.setErrors(errors);
    }
    await run(async () => {
      if (checked.route === 'device.create') {
        const created = await callRoute(checked.route, { body: checked.data });
        onSecret({ sn: created.sn, secret: created.secret });
      } else await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  return (
    <FormDialog
      {...dialog}
      width="640px"
      title={t(creating ? (nodeType ? 'fleet.addGateway' : 'fleet.addDevice') : 'fleet.editDevice')}
      onSubmit={() => void submit()}
    >
      <Field label={t('fleet.sn')} required error={form.errors.sn}>
        <TextField.Root {...form.input('sn')} disabled={!creating} />
      </Field>
      <Field label={t('fleet.deviceName')} required error={form.errors.name}>
        <TextField.Root {...form.input('name')} />
      </Field>
      <Field label={t('fleet.product')} required error={form.errors.productId}>
        {creating ? (
          <SelectInput {...form.select('productId')} options={offered} placeholder={t('common.selectPlaceholder')} />
        ) : (
          <TextField.Root value={products.data?.find((p) => p.value === v.productId)?.label ?? ''} disabled />
        )}
      </Field>
      <Field label={t('fleet.group')} error={form.errors.groupId}>
        <SelectInput {...form.select('groupId')} options={groups.data ?? []} placeholder={t('common.selectPlaceholder')} />
      </Field>
      <Field label={t('fleet.lng')} error={form.errors.lng}>
        <TextField.Root {...form.input('lng')} />
      </Field>
      <Field label={t('fleet.lat')} error={form.errors.lat}>
        <TextField.Root {...form.input('lat')} />
      </Field>
      <Field label={t('fleet.address')}>
        <TextField.Root {...form.input('address')} />
      </Field>
      <Field label={t('fleet.version')}>
        <TextField.Root {...form.input('version')} />
      </Field>
      <Field label={t('fleet.tags')} error={form.errors.tags}>
        <TextField.Root {...form.input('tags')} />
      </Field>
      <Field label={t('fleet.remark')}>
        <TextArea {...form.input('remark')} />
      </Field>
    </FormDialog>
  );
}

/** Bulk import: the file streams up while a websocket reports progress; refused rows come back as a report. */
function ImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const refresh = useRefresh(DEVICES);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ rows: number; bytes: number; done: boolean } | null>(null);
  const [result, setResult] = useState<{ jobId: string; created: number; unchanged: number; failed: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reset = () => {
    setFile(null);
    setProgress(null);
    setResult(null);
    setError(null);
  };
  const pick = (f: File | undefined) => {
    reset();
    if (!f) return;
    if (!/\.(csv|xlsx)$/i.test(f.name)) return setError(t('fleet.fileType'));
    if (f.size > IMPORT_MAX_BYTES) return setError(t('fleet.fileTooLarge'));
    setFile(f);
  };
  const upload = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    const jobId = `web${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const socket = new WebSocket(channelUrl('device.import'));
    socket.onmessage = (m) => {
      const p = JSON.parse(String(m.data)) as { jobId: string; rows: number; bytes: number; done: boolean };
      // A progress message sent before the import ended may arrive after its answer: the finished bar stays full.
      if (p.jobId === jobId) setProgress((current) => (current?.done ? current : p));
    };
    await new Promise((resolve) => {
      socket.onopen = resolve;
      socket.onerror = resolve;
      setTimeout(resolve, 2000);
    });
    try {
      const type = file.name.toLowerCase().endsWith('.xlsx')
        ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
        : 'text/csv';
      // The import reads the groups its rows name, not the current one; a refused file shows the server's message.
      const imported = await callRoute(
        'device.import',
        { body: new Blob([file], { type }), query: { jobId, filename: file.name } },
        { noStation: true, noRedirect: true, noTimeout: true },
      );
      setResult(imported);
      setProgress((p) => ({ rows: p?.rows ?? 0, bytes: file.size, done: true }));
      // The import is over: the dialog may be closed while the list reloads behind it (Escape was ignored till then).
      setBusy(false);
      await refresh();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      socket.close();
      setBusy(false);
    }
  };
  const percent = progress ? Math.min(100, Math.round((progress.done ? 1 : progress.bytes / (file?.size || 1)) * 100)) : 0;
  return (
    <Dialog.Root open={open} onOpenChange={(o) => !o && !busy && (reset(), onClose())}>
      <Dialog.Content maxWidth="600px" aria-describedby={undefined}>
        <Dialog.Title>{t('fleet.importTitle')}</Dialog.Title>
        <Text as="p" size="2" color="gray" mb="3">
          {t('fleet.importHint')}
        </Text>
        <Flex gap="3" align="center" mb="3" wrap="wrap">
          <Button
            variant="soft"
            onClick={() =>
              void downloadRoute('device.importTemplate', {}, 'device-import-template.csv').catch((e: unknown) =>
                notice.error(messageOf(e)),
              )
            }
          >
            {t('fleet.downloadTemplate')}
          </Button>
          <input
            type="file"
            accept=".csv,.xlsx"
            aria-label={t('fleet.chooseFile')}
            onChange={(e) => pick(e.target.files?.[0])}
            disabled={busy}
          />
        </Flex>
        {error && (
          <Callout.Root color="red" mb="3" role="alert">
            <Callout.Text>{error}</Callout.Text>
          </Callout.Root>
        )}
        {progress && (
          <Flex direction="column" gap="2" mb="3">
            <Progress value={percent} aria-label={t('fleet.importing')} data-percent={percent} />
            <Text size="2">{t('fleet.rowsRead', { rows: progress.rows })}</Text>
          </Flex>
        )}
        {result && (
          <Callout.Root color={result.failed > 0 ? 'orange' : 'green'} mb="3">
            <Callout.Text data-testid="import-summary">{t('fleet.importDone', result)}</Callout.Text>
          </Callout.Root>
        )}
        <Flex gap="3" justify="end">
          {result && result.failed > 0 && (
            <Button
              variant="soft"
              color="orange"
              onClick={() => void downloadRoute('device.importReport', { jobId: result.jobId }, `import-report-${result.jobId}.csv`)}
            >
              {t('fleet.downloadReport')}
            </Button>
          )}
          <Button onClick={() => void upload()} disabled={!file || busy} loading={busy}>
            {busy ? t('fleet.importing') : t('fleet.upload')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** How much history the live trend starts from, and how many points a line keeps as it grows. */
const TREND_START_MS = 30 * 60_000;
const TREND_MAX_POINTS = 720;
/** The variables the trend shows first: the first numeric one (others are picked in the table). */
const TREND_FIRST = 1;

/**
 * Newest values of the device, kept current by the live channel, and a trend of the chosen numeric variables:
 * the last half hour from the history, then growing with each value the channel brings.
 */
function LiveValues({ id }: { id: string }) {
  const { t } = useTranslation();
  const latest = useQuery({ queryKey: ['latest', id], queryFn: () => callRoute('telemetry.latest', { query: { id } }) });
  const [live, setLive] = useState<Record<string, { value: number | null; text: string | null; ts: string }>>({});
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [trend, setTrend] = useState<Record<string, Array<[string, number | null]>>>({});
  const rows = latest.data ?? [];
  const numeric = rows.filter((r) => r.value !== null && r.text === null).map((r) => r.variable);
  const shown = chosen ?? numeric.slice(0, TREND_FIRST);
  const shownKey = shown.join(',');
  useEffect(() => {
    const socket = new WebSocket(channelUrl('telemetry.live', { deviceIds: id }));
    socket.onmessage = (m) => {
      const v = JSON.parse(String(m.data)) as { variable: string; value: number | null; text: string | null; ts: string };
      setLive((old) => ({ ...old, [v.variable]: v }));
      if (v.value !== null)
        setTrend((old) =>
          old[v.variable]
            ? { ...old, [v.variable]: [...old[v.variable]!, [v.ts, v.value] as [string, number | null]].slice(-TREND_MAX_POINTS) }
            : old,
        );
    };
    return () => socket.close();
  }, [id]);
  // The chosen variables' recent history, once each is chosen: the live values then extend it.
  useEffect(() => {
    if (!shownKey) return;
    let cancelled = false;
    const to = new Date();
    void callRoute('telemetry.history', {
      query: {
        id,
        variables: shownKey,
        bucket: 'raw',
        from: new Date(to.getTime() - TREND_START_MS).toISOString(),
        to: to.toISOString(),
        pageSize: TREND_MAX_POINTS,
      },
    })
      .then((series) => {
        if (cancelled) return;
        setTrend((old) => {
          const next: typeof old = {};
          for (const variable of shownKey.split(',')) {
            const past = (series.find((s) => s.variable === variable)?.points ?? []).map((p) => [p.ts, p.value] as [string, number | null]);
            const since = past.at(-1)?.[0] ?? '';
            next[variable] = [...past, ...(old[variable] ?? []).filter(([ts]) => ts > since)].slice(-TREND_MAX_POINTS);
          }
          return next;
        });
      })
      .catch((e: unknown) => notice.error(messageOf(e)));
    return () => {
      cancelled = true;
    };
  }, [id, shownKey]);
  if (latest.isLoading) return <Text color="gray">{t('common.loading')}</Text>;
  if (rows.length === 0 && Object.keys(live).length === 0) return <Text color="gray">{t('fleet.noValues')}</Text>;
  const nameOf = (variable: string) => rows.find((r) => r.variable === variable)?.name ?? variable;
  const toggle = (variable: string, on: boolean) =>
    setChosen(on ? [...new Set([...shown, variable])] : shown.filter((v) => v !== variable));
  return (
    <Flex direction="column" gap="3" mt="3">
      {shown.length > 0 && (
        <Card>
          <Text as="div" size="2" weight="bold" mb="1">
            {t('fleet.trend')}
          </Text>
          <TrendChart
            label={t('fleet.trend')}
            height={260}
            series={shown.map((variable) => ({ name: nameOf(variable), points: trend[variable] ?? [] }))}
          />
        </Card>
      )}
      <Table.Root size="1" variant="surface" aria-label={t('fleet.liveValues')}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeaderCell width="48px">{t('fleet.onTrend')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.name')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.identifier')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.value')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.time')}</Table.ColumnHeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((r) => {
            const now = live[r.variable];
            const value = now ? (now.text ?? `${now.value}${r.unit ? ` ${r.unit}` : ''}`) : r.display;
            return (
              <Table.Row key={r.variable}>
                <Table.Cell>
                  {numeric.includes(r.variable) && (
                    <Checkbox
                      aria-label={t('fleet.showOnTrend', { name: r.name ?? r.variable })}
                      checked={shown.includes(r.variable)}
                      onCheckedChange={(c) => toggle(r.variable, c === true)}
                    />
                  )}
                </Table.Cell>
                <Table.Cell>{r.name ?? r.variable}</Table.Cell>
                <Table.Cell>{r.variable}</Table.Cell>
                <Table.Cell>
                  <Text weight="bold">{value}</Text>
                </Table.Cell>
                <Table.Cell>{formatDate(now?.ts ?? r.ts, true)}</Table.Cell>
              </Table.Row>
            );
          })}
        </Table.Body>
      </Table.Root>
    </Flex>
  );
}

/** Options (id → name) of the tenant's gateways, to name a device's gateway in its history. */
function useGatewayNames() {
  return useQuery({
    queryKey: [DEVICES, 'gateway-names'],
    queryFn: async () =>
      new Map((await callRoute('device.list', { query: { nodeType: 'gateway', pageSize: 500 } })).rows.map((g) => [g.id, g.name])),
  });
}

/**
 * A field of a device's stream as a person reads it: its label, and its value by name (a product, group or
 * gateway by its name, a flag as yes or no, tags as a list, a location to 6 decimals), never an id or JSON.
 */
function useDeviceFieldFormat() {
  const { t, i18n } = useTranslation();
  const products = useProductOptions();
  const groups = useGroupOptions();
  const gateways = useGatewayNames();
  const nameIn = (options: { value: string; label: string }[] | undefined, id: string) =>
    options?.find((o) => o.value === id)?.label.trim() ?? t('fleet.unknownRecord');
  const label = (field: string) => (i18n.exists(`fleet.fields.${field}`) ? t(`fleet.fields.${field}`) : field);
  const value = (field: string, v: unknown): string => {
    if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) return EMPTY;
    if (typeof v === 'boolean') return t(v ? 'fleet.yes' : 'fleet.no');
    if (field === 'productId') return nameIn(products.data, String(v));
    if (field === 'groupId') return nameIn(groups.data, String(v));
    if (field === 'gatewayId') return gateways.data?.get(String(v)) ?? t('fleet.unknownRecord');
    if (field === 'nodeType') return t(`fleet.nodeTypes.${String(v)}`);
    if (field === 'modelVersion') return `v${String(v)}`;
    if (Array.isArray(v)) return v.map(String).join(i18n.language === 'en' ? ', ' : '、');
    if (field === 'location' && typeof v === 'object') {
      const { lng, lat, address } = v as { lng: number | null; lat: number | null; address: string | null };
      return [formatLocation(lng, lat), address].filter(Boolean).join(' · ') || EMPTY;
    }
    if (typeof v === 'object')
      return (
        Object.values(v as object)
          .filter((x) => x !== null)
          .map(String)
          .join(' · ') || EMPTY
      );
    return String(v);
  };
  return { label, value };
}

/** Fields of a device's stream that say nothing to a person (its secret's hash, its open commands). */
const hiddenFields = new Set(['secretHash', 'openCommands', 'exists', 'deleted', 'online']);

/** Who changed what, field by field, and the device as it was at any instant. */
function History({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const timeline = useQuery({ queryKey: ['timeline', id], queryFn: () => callRoute('device.timeline', { query: { id } }) });
  const { actorOf } = useLogNames();
  const field = useDeviceFieldFormat();
  const [at, setAt] = useState('');
  const [asOf, setAsOf] = useState<Awaited<ReturnType<typeof callRoute<'device.asOf'>>> | null>(null);
  const look = async () => {
    try {
      setAsOf(await callRoute('device.asOf', { query: { id, at: new Date(at).toISOString() } }));
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  const asOfFields =
    asOf?.exists && asOf.device
      ? [
          ...Object.entries(asOf.device)
            .filter(([k]) => !hiddenFields.has(k))
            .map(([k, v]) => [field.label(k), k === 'productId' && asOf.product ? asOf.product.name : field.value(k, v)] as const),
          [
            t('fleet.thingModel'),
            (asOf.product?.functions ?? []).map((f) => String(f.name ?? f.identifier)).join(i18n.language === 'en' ? ', ' : '、') || EMPTY,
          ] as const,
        ]
      : [];
  return (
    <Flex direction="column" gap="3" mt="3">
      <Flex gap="2" align="end">
        <Field label={t('fleet.asOfAt')}>
          <DateTimeInput seconds value={at} onChange={setAt} aria-label={t('fleet.asOfAt')} />
        </Field>
        <Button onClick={() => void look()} disabled={!at}>
          {t('fleet.show')}
        </Button>
      </Flex>
      {asOf && (
        <Callout.Root color="blue" data-testid="as-of">
          <div>
            {asOf.exists && asOf.device ? (
              <>
                <Text as="div" weight="bold" mb="1">
                  {t('fleet.asOfTitle', { at: formatDate(asOf.at, true), version: asOf.version })}
                </Text>
                <dl className="detail-list">
                  {asOfFields.map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{v}</dd>
                    </div>
                  ))}
                </dl>
              </>
            ) : (
              t('fleet.notYet')
            )}
          </div>
        </Callout.Root>
      )}
      <Table.Root size="1" variant="surface" aria-label={t('fleet.timeline')}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeaderCell>{t('fleet.time')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.actor')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.event')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.field')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.before')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('fleet.after')}</Table.ColumnHeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {(timeline.data ?? []).flatMap((e) => {
            const changes = e.changes.filter((c) => !hiddenFields.has(c.field));
            return (changes.length ? changes : [{ field: '', before: null, after: null }]).map((c, i) => (
              <Table.Row key={`${e.version}-${i}`}>
                <Table.Cell>{i === 0 ? formatDate(e.occurredAt, true) : ''}</Table.Cell>
                <Table.Cell>{i === 0 ? actorOf(e) : ''}</Table.Cell>
                <Table.Cell>{i === 0 ? (i18n.exists(`event.${e.eventType}`) ? t(`event.${e.eventType}`) : e.eventType) : ''}</Table.Cell>
                <Table.Cell>{c.field ? field.label(c.field) : ''}</Table.Cell>
                <Table.Cell>
                  <Text color="red">{c.field ? field.value(c.field, c.before) : ''}</Text>
                </Table.Cell>
                <Table.Cell>
                  <Text color="green">{c.field ? field.value(c.field, c.after) : ''}</Text>
                </Table.Cell>
              </Table.Row>
            ));
          })}
        </Table.Body>
      </Table.Root>
    </Flex>
  );
}

export function DeviceDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const me = useSession();
  const detail = useQuery({ queryKey: ['device', id], queryFn: () => callRoute('device.detail', { query: { id: id! } }), enabled: !!id });
  if (!id) return null;
  const d = detail.data;
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="1000px" aria-describedby={undefined}>
        <Dialog.Title>
          {d?.name ?? '…'} <Badge color={d?.status === 'online' ? 'green' : 'gray'}>{d ? t(`fleet.statuses.${d.status}`) : ''}</Badge>
        </Dialog.Title>
        {detail.isError && <Text color="red">{messageOf(detail.error)}</Text>}
        {d && (
          <Tabs.Root defaultValue="fields">
            <Tabs.List>
              <Tabs.Trigger value="fields">{t('fleet.detail')}</Tabs.Trigger>
              <Tabs.Trigger value="live">{t('fleet.liveValues')}</Tabs.Trigger>
              <Tabs.Trigger value="model">{t('fleet.thingModel')}</Tabs.Trigger>
              <Tabs.Trigger value="commands">{t('cmd.tab')}</Tabs.Trigger>
              {can(me, devicePerm.deviceCommand) && <Tabs.Trigger value="passthrough">{t('cmd.passthrough')}</Tabs.Trigger>}
              {can(me, devicePerm.deviceHistory) && <Tabs.Trigger value="history">{t('fleet.timeline')}</Tabs.Trigger>}
            </Tabs.List>
            <Tabs.Content value="fields">
              <dl className="detail-list">
                {(
                  [
                    ['sn', d.sn],
                    ['product', d.productName],
                    ['nodeType', t(`fleet.nodeTypes.${d.nodeType}`)],
                    ['group', d.groupName],
                    ['gateway', d.gatewayName],
                    ['location', formatLocation(d.lng, d.lat)],
                    ['address', d.address],
                    ['version', d.version],
                    ['tags', d.tags.join('; ')],
                    ['modelVersion', d.modelVersion ? `v${d.modelVersion}` : null],
                    ['lastReport', d.lastReportAt ? formatDate(d.lastReportAt, true) : null],
                    ['subDevices', d.nodeType === 'gateway' ? d.subDeviceCount : null],
                    ['remark', d.remark],
                  ] as const
                ).map(([k, value]) => (
                  <div key={k}>
                    <dt>{t(`fleet.${k}`)}</dt>
                    <dd>{display(value)}</dd>
                  </div>
                ))}
              </dl>
            </Tabs.Content>
            <Tabs.Content value="live">
              <LiveValues id={id} />
            </Tabs.Content>
            <Tabs.Content value="model">
              <Table.Root size="1" variant="surface" mt="3">
                <Table.Body>
                  {d.functions.map((f) => (
                    <Table.Row key={String(f.identifier)}>
                      <Table.Cell>{t(`fleet.types.${String(f.type)}`)}</Table.Cell>
                      <Table.Cell>{String(f.name)}</Table.Cell>
                      <Table.Cell>{String(f.identifier)}</Table.Cell>
                      <Table.Cell>{describeSpec(f.dataType as Record<string, unknown> | undefined)}</Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            </Tabs.Content>
            <Tabs.Content value="commands">
              <DeviceCommands deviceId={id} functions={d.functions} />
            </Tabs.Content>
            <Tabs.Content value="passthrough">
              <Passthrough deviceId={id} />
            </Tabs.Content>
            <Tabs.Content value="history">
              <History id={id} />
            </Tabs.Content>
          </Tabs.Root>
        )}
        <Flex justify="end" mt="3">
          <Dialog.Close>
            <Button variant="soft" color="gray">
              {t('common.close')}
            </Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** A gateway's sub-devices: listed, taken out, or added by SN (spec §2 gateways, issue 10 "Gateways"). */
function SubDevicesDialog({ gateway, onClose }: { gateway: DeviceRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [sns, setSns] = useState('');
  const subs = useQuery({
    queryKey: ['subDevices', gateway?.id],
    queryFn: () => callRoute('device.list', { query: { gatewayId: gateway!.id, pageSize: 500 } }),
    enabled: !!gateway,
  });
  const refresh = useRefresh(DEVICES);
  if (!gateway) return null;
  const bind = async (gatewayId: string | null, deviceIds: string[]) => {
    try {
      const r = await callRoute('gateway.bind', { body: { gatewayId, deviceIds } });
      if (r.failed > 0) notice.error(t('fleet.bulkResult', r));
      else notice.success(t('common.saved'));
      await subs.refetch();
      await refresh();
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  const add = async () => {
    const wanted = sns.split(/[,，\s]+/).filter(Boolean);
    const ids: string[] = [];
    for (const sn of wanted) {
      const found = (await callRoute('device.list', { query: { sn, pageSize: 5 } })).rows.find((d) => d.sn === sn);
      if (found) ids.push(found.id);
    }
    if (ids.length === 0) return notice.error(t('common.noData'));
    setSns('');
    await bind(gateway.id, ids);
  };
  return (
    <Dialog.Root open onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="760px" aria-describedby={undefined}>
        <Dialog.Title>
          {gateway.name} · {t('fleet.subDevices')}
        </Dialog.Title>
        <Table.Root size="1" variant="surface" mb="3">
          <Table.Body>
            {(subs.data?.rows ?? []).length === 0 && (
              <Table.Row>
                <Table.Cell>
                  <Text color="gray">{t('common.noData')}</Text>
                </Table.Cell>
              </Table.Row>
            )}
            {(subs.data?.rows ?? []).map((d) => (
              <Table.Row key={d.id}>
                <Table.Cell>{d.name}</Table.Cell>
                <Table.Cell>{d.sn}</Table.Cell>
                <Table.Cell>{t(`fleet.statuses.${d.status}`)}</Table.Cell>
                <Table.Cell>
                  <PermittedRowButton
                    permission={devicePerm.gatewayEdit}
                    label={t('common.delete')}
                    danger
                    onClick={() => void bind(null, [d.id])}
                  />
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
        <Flex gap="2" align="end">
          <Field label={t('fleet.sn')}>
            <TextField.Root value={sns} onChange={(e) => setSns(e.target.value)} placeholder="SN-1, SN-2" aria-label={t('fleet.sn')} />
          </Field>
          <Button onClick={() => void add()} disabled={!sns.trim()}>
            {t('common.add')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** Picks a group for "move to group" on the selected devices. */
function MoveDialog({ ids, onClose }: { ids: string[] | null; onClose: () => void }) {
  const { t } = useTranslation();
  const groups = useGroupOptions();
  const [groupId, setGroupId] = useState('');
  const change = useListChange(DEVICES);
  if (!ids) return null;
  return (
    <FormDialog
      open
      dirty={false}
      title={t('fleet.moveGroup')}
      onClose={onClose}
      onSubmit={() =>
        void change(async () => {
          const r = await callRoute('device.bulk', { body: { action: 'moveGroup', ids, groupId: groupId || null } });
          notice.success(t('fleet.bulkResult', r));
          onClose();
        }, t('common.saved'))
      }
    >
      <Field label={t('fleet.group')}>
        <SelectInput value={groupId} onChange={setGroupId} options={groups.data ?? []} placeholder={t('common.selectPlaceholder')} />
      </Field>
    </FormDialog>
  );
}

type DeadLetterRow = Awaited<ReturnType<typeof callRoute<'telemetry.deadLetters'>>>['rows'][number];

/** Messages the intake could not take (issue 11): device, topic, reason and payload, filterable by SN and reason. */
function DeadLettersDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const columns: ListColumn<DeadLetterRow>[] = [
    { id: 'at', header: t('fleet.deadLetterAt'), value: (r) => formatDate(r.at, true), sortable: true, width: 150 },
    { id: 'sn', header: 'SN', value: (r) => r.sn, width: 120 },
    { id: 'topic', header: t('fleet.topic'), value: (r) => r.topic, width: 180 },
    { id: 'reason', header: t('fleet.reason'), value: (r) => r.reason, width: 240 },
    { id: 'payload', header: t('fleet.payload'), value: (r) => r.payload, width: 240 },
  ];
  return (
    <Dialog.Root open={open} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="1100px" aria-describedby={undefined}>
        <Dialog.Title>{t('fleet.deadLetters')}</Dialog.Title>
        {open && (
          <ListPage<DeadLetterRow>
            queryKey="deadLetters"
            route="telemetry.deadLetters"
            exportName={t('fleet.deadLetters')}
            columns={columns}
            selectable={false}
            defaultSort={{ sort: 'at', order: 'desc' }}
            filters={[
              { name: 'sn', label: 'SN' },
              { name: 'reason', label: t('fleet.reason') },
            ]}
          />
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}

export function DevicesPage({ nodeType }: { nodeType?: 'gateway' } = {}) {
  const { t } = useTranslation();
  const me = useSession();
  const [editing, setEditing] = useState<DeviceRow | 'new' | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ sn: string; secret: string } | null>(null);
  const [deadLetters, setDeadLetters] = useState(false);
  const [importing, setImporting] = useState(false);
  const [moving, setMoving] = useState<string[] | null>(null);
  const [subsOf, setSubsOf] = useState<DeviceRow | null>(null);
  const groups = useGroupOptions();
  const products = useProductOptions();
  const deleteRows = useListDelete(DEVICES);
  const change = useListChange(DEVICES);
  const bulk = (action: 'enable' | 'disable', rows: DeviceRow[]) =>
    change(async () => {
      const r = await callRoute('device.bulk', { body: { action, ids: rows.map((x) => x.id) } });
      if (r.failed > 0) throw new ApiError(200, 'PARTLY', t('fleet.bulkResult', r));
    }, t('common.success'));
  const params = useRef<ListParams>(nodeType ? {} : {});
  const columns: ListColumn<DeviceRow>[] = [
    {
      id: 'name',
      header: t('fleet.deviceName'),
      value: (r) => r.name,
      cell: (r) => (
        <Button variant="ghost" size="1" onClick={() => setOpen(r.id)} style={{ maxWidth: '100%' }}>
          <Ellipsis value={r.name} />
        </Button>
      ),
      sortable: true,
      width: 170,
    },
    { id: 'sn', header: t('fleet.sn'), value: (r) => r.sn, sortable: true, width: 150 },
    { id: 'product', header: t('fleet.product'), value: (r) => r.productName, width: 140 },
    {
      id: 'status',
      header: t('fleet.status'),
      value: (r) => t(`fleet.statuses.${r.status}`),
      cell: (r) => <Badge color={r.status === 'online' ? 'green' : 'gray'}>{t(`fleet.statuses.${r.status}`)}</Badge>,
      sortable: true,
      width: 80,
    },
    { id: 'enabled', header: t('fleet.enabled'), value: (r) => (r.enabled ? '✓' : '✗'), width: 60 },
    { id: 'group', header: t('fleet.group'), value: (r) => r.groupName, width: 120 },
    ...(nodeType === 'gateway'
      ? [{ id: 'subDevices', header: t('fleet.subDevices'), value: (r: DeviceRow) => r.subDeviceCount, width: 80 }]
      : [{ id: 'gateway', header: t('fleet.gateway'), value: (r: DeviceRow) => r.gatewayName, width: 120 }]),
    { id: 'address', header: t('fleet.address'), value: (r) => r.address, width: 140 },
    {
      id: 'lastReportAt',
      header: t('fleet.lastReport'),
      value: (r) => (r.lastReportAt ? formatDate(r.lastReportAt, true) : null),
      sortable: true,
      width: 150,
    },
    { id: 'createTime', header: t('fleet.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<DeviceRow>
        queryKey={DEVICES}
        route={nodeType === 'gateway' ? 'gateway.list' : 'device.list'}
        params={params.current}
        exportName={t(nodeType === 'gateway' ? 'fleet.gateway' : 'fleet.device')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('fleet.deviceName') },
          { name: 'sn', label: t('fleet.sn') },
          {
            name: 'status',
            label: t('fleet.status'),
            type: 'select',
            options: ['online', 'offline'].map((v) => ({ value: v, label: t(`fleet.statuses.${v}`) })),
          },
          { name: 'groupId', label: t('fleet.group'), type: 'select', options: groups.data ?? [] },
          ...(nodeType ? [] : [{ name: 'productId', label: t('fleet.product'), type: 'select' as const, options: products.data ?? [] }]),
        ]}
        actions={[
          {
            label: t(nodeType ? 'fleet.addGateway' : 'fleet.addDevice'),
            permission: devicePerm.deviceAdd,
            select: 'none',
            onClick: () => setEditing('new'),
          },
          ...(nodeType
            ? []
            : [
                {
                  label: t('fleet.import'),
                  permission: devicePerm.deviceImport,
                  select: 'none' as const,
                  variant: 'soft' as const,
                  onClick: () => setImporting(true),
                },
                {
                  label: t('fleet.deadLetters'),
                  permission: devicePerm.deviceList,
                  select: 'none' as const,
                  variant: 'soft' as const,
                  onClick: () => setDeadLetters(true),
                },
              ]),
          {
            label: t('fleet.enable'),
            permission: devicePerm.deviceEdit,
            select: 'some',
            variant: 'soft',
            onClick: (rows) => bulk('enable', rows),
          },
          {
            label: t('fleet.disable'),
            permission: devicePerm.deviceEdit,
            select: 'some',
            variant: 'soft',
            onClick: (rows) => bulk('disable', rows),
          },
          {
            label: t('fleet.moveGroup'),
            permission: devicePerm.deviceEdit,
            select: 'some',
            variant: 'soft',
            onClick: (rows) => setMoving(rows.map((r) => r.id)),
          },
          {
            label: t('common.delete'),
            permission: devicePerm.deviceDelete,
            select: 'some',
            color: 'red',
            onClick: (rows) =>
              deleteRows(t('fleet.deleteDeviceConfirm', { names: rows.map((r) => r.name).join(', ') }), async () => {
                const r = await callRoute('device.bulk', { body: { action: 'delete', ids: rows.map((x) => x.id) } });
                if (r.failed > 0) throw new ApiError(200, 'PARTLY', t('fleet.bulkResult', r));
              }),
          },
        ]}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={devicePerm.deviceList} label={t('fleet.detail')} onClick={() => setOpen(row.id)} />
            {row.nodeType === 'gateway' && (
              <PermittedRowButton permission={devicePerm.gatewayEdit} label={t('fleet.subDevices')} onClick={() => setSubsOf(row)} />
            )}
            <PermittedRowButton permission={devicePerm.deviceEdit} label={t('common.edit')} onClick={() => setEditing(row)} />
            {can(me, devicePerm.deviceSecret) && (
              <PermittedRowButton
                permission={devicePerm.deviceSecret}
                label={t('fleet.resetSecret')}
                onClick={() =>
                  void confirm({ message: t('fleet.resetSecretConfirm', { name: row.name }), danger: true }).then(async (ok) => {
                    if (!ok) return;
                    try {
                      setSecret(await callRoute('device.rotateSecret', { body: { id: row.id } }));
                    } catch (e) {
                      notice.error(messageOf(e));
                    }
                  })
                }
              />
            )}
          </>
        )}
      />
      <DeviceDialog editing={editing} nodeType={nodeType} onClose={() => setEditing(null)} onSecret={setSecret} />
      <DeviceDetail id={open} onClose={() => setOpen(null)} />
      <SecretDialog secret={secret} onClose={() => setSecret(null)} />
      <ImportDialog open={importing} onClose={() => setImporting(false)} />
      <MoveDialog ids={moving} onClose={() => setMoving(null)} />
      <SubDevicesDialog gateway={subsOf} onClose={() => setSubsOf(null)} />
      <DeadLettersDialog open={deadLetters} onClose={() => setDeadLetters(false)} />
    </>
  );
}

export const GatewaysPage = () => <DevicesPage nodeType="gateway" />;
