import './i18n.ts';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Box, Button, Card, CheckboxGroup, Dialog, Flex, RadioGroup, ScrollArea, Table, Text, TextField } from '@radix-ui/themes';
import {
  REPORT_VIEW_ROWS,
  reportCycles,
  reportFns,
  reportFormats,
  reportFrequencies,
  type ReportFormat,
} from '@iot/contracts/report/model.ts';
import { reportPerm } from '@iot/contracts/report/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { downloadRoute } from '../fleet/download.ts';
import { TrendChart } from '../fleet/TrendChart.tsx';
import { labelled } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { DateTimeInput } from '../ui/DateTimeInput.tsx';

type Table = Awaited<ReturnType<typeof callRoute<'report.run'>>>;
type Saved = Awaited<ReturnType<typeof callRoute<'report.list'>>>['rows'][number];
type Fn = (typeof reportFns)[number];
type Cycle = (typeof reportCycles)[number];
type Frequency = (typeof reportFrequencies)[number];

const REPORTS = 'reports';

/** A labelled set of checkboxes: a group, not a <label> (a label around them would name only the first). */
function Choices({ label, required, error, children }: { label: string; required?: boolean; error?: string; children: ReactNode }) {
  return (
    <div className="field" role="group" aria-label={label} data-invalid={error ? 'true' : undefined}>
      <Text as="div" size="2" weight="medium" className="field-label">
        {required && <span className="required">*</span>}
        {label}
      </Text>
      {children}
      {error && (
        <Text as="div" size="1" color="red" className="field-error" role="alert">
          {error}
        </Text>
      )}
    </div>
  );
}
/** Rows the page draws at once; the answer holds up to REPORT_VIEW_ROWS. */
const TABLE_ROWS = 500;
/** Lines the chart draws at most (device × variable). */
const CHART_SERIES = 20;
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
const round = (v: number | null) => (v === null ? '--' : String(Math.round(v * 1000) / 1000));

interface Definition {
  productId: string;
  source: 'devices' | 'group';
  deviceIds: string[];
  groupId: string;
  variables: string[];
  fn: Fn;
  cycle: Cycle;
  from: string;
  to: string;
  timeZone: string;
}
const fresh = (): Definition => ({
  productId: '',
  source: 'devices',
  deviceIds: [],
  groupId: '',
  variables: [],
  fn: 'avg',
  cycle: '1h',
  from: local(new Date(Date.now() - 86_400_000)),
  to: local(new Date()),
  timeZone: 'Asia/Shanghai',
});

/** The schedule and name of a report being saved. */
function SaveDialog({
  open,
  saved,
  definition,
  onClose,
  onSaved,
}: {
  open: boolean;
  saved: Saved | null;
  definition: Definition;
  onClose: () => void;
  onSaved: (id: string) => void;
}) {
  const { t } = useTranslation();
  const me = useSession();
  const [name, setName] = useState(saved?.name ?? '');
  const [frequency, setFrequency] = useState<Frequency>(saved?.frequency ?? 'none');
  const [hour, setHour] = useState(String(saved?.hour ?? 8));
  const [contactIds, setContactIds] = useState<string[]>(saved?.contactIds ?? []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const contacts = useQuery({
    queryKey: ['contacts', 'options'],
    enabled: open,
    queryFn: async () => (await callRoute('contact.list', { query: { pageSize: 200 } })).rows,
  });
  const submit = async (asNew: boolean) => {
    const body = {
      name,
      deviceIds: definition.source === 'devices' ? definition.deviceIds : [],
      groupId: definition.source === 'group' ? definition.groupId || null : null,
      variables: definition.variables,
      fn: definition.fn,
      cycle: definition.cycle,
      timeZone: definition.timeZone,
      frequency,
      hour: Number(hour),
      contactIds,
      remark: saved?.remark ?? null,
    };
    const checked = saved && !asNew ? checkBody('report.update', { ...body, id: saved.id }, t) : checkBody('report.create', body, t);
    if (!checked.ok) return setErrors(checked.errors);
    try {
      const { id } = await callRoute(checked.route, { body: checked.data });
      notice.success(t('common.saved'));
      onSaved(id);
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  return (
    <Dialog.Root open={open} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="560px" aria-describedby={undefined}>
        <Dialog.Title>{t('report.save')}</Dialog.Title>
        <Flex direction="column" gap="3">
          <Field label={t('report.name')} required error={errors.name}>
            <TextField.Root name="name" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <Field label={t('report.frequency')} hint={t('report.scheduleHint')} error={errors.frequency}>
            <SelectInput
              name="frequency"
              value={frequency}
              onChange={(v) => setFrequency(v as Frequency)}
              options={labelled(t, 'report.frequencies', reportFrequencies)}
            />
          </Field>
          {frequency !== 'none' && (
            <>
              <Field label={t('report.hour')} error={errors.hour}>
                <SelectInput
                  name="hour"
                  value={hour}
                  onChange={setHour}
                  options={Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, '0')}:00` }))}
                />
              </Field>
              <Choices label={t('report.contacts')} required error={errors.contactIds}>
                <CheckboxGroup.Root value={contactIds} onValueChange={setContactIds} name="contactIds">
                  {(contacts.data ?? []).map((c) => (
                    <CheckboxGroup.Item key={c.id} value={c.id}>
                      {c.name} ({c.email})
                    </CheckboxGroup.Item>
                  ))}
                </CheckboxGroup.Root>
              </Choices>
            </>
          )}
        </Flex>
        <Flex justify="end" gap="2" mt="4">
          <Button variant="soft" color="gray" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          {saved && can(me, reportPerm.add) && (
            <Button variant="soft" onClick={() => void submit(true)}>
              {t('report.saveAs')}
            </Button>
          )}
          <Button onClick={() => void submit(false)}>{t('common.save')}</Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/**
 * Report customization (spec §2, issue 20): devices or a group, variables, aggregation and cycle, a range; the
 * report as a chart and a table, exported as CSV, XLSX or PDF, saved and emailed on a schedule.
 */
export function ReportPage() {
  const { t } = useTranslation();
  const me = useSession();
  const client = useQueryClient();
  const [d, setD] = useState<Definition>(fresh);
  const set = <K extends keyof Definition>(key: K, value: Definition[K]) => setD((old) => ({ ...old, [key]: value }));
  const [savedId, setSavedId] = useState('');
  const [saving, setSaving] = useState(false);
  const [table, setTable] = useState<Table | null>(null);

  const saved = useQuery({
    queryKey: [REPORTS],
    queryFn: async () => (await callRoute('report.list', { query: { pageSize: 200 } })).rows,
  });
  const current = saved.data?.find((r) => r.id === savedId) ?? null;
  const products = useQuery({
    queryKey: ['products', 'options'],
    queryFn: async () => (await callRoute('product.list', { query: { pageSize: 500 } })).rows,
  });
  const product = useQuery({
    queryKey: ['product', d.productId],
    enabled: !!d.productId,
    queryFn: () => callRoute('product.detail', { query: { id: d.productId } }),
  });
  const devices = useQuery({
    queryKey: ['devices', 'options', d.productId],
    queryFn: async () =>
      (await callRoute('device.list', { query: { pageSize: 500, ...(d.productId ? { productId: d.productId } : {}) } })).rows,
  });
  const groups = useQuery({
    queryKey: ['groups', 'options'],
    queryFn: async () => (await callRoute('group.list', { query: { pageSize: 500 } })).rows,
  });
  const properties = (product.data?.functions ?? [])
    .filter((f) => f.type === 'property')
    .map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }));

  const load = (id: string) => {
    setSavedId(id);
    const r = saved.data?.find((x) => x.id === id);
    if (!r) return setD(fresh());
    setD((old) => ({
      ...old,
      source: r.groupId ? 'group' : 'devices',
      deviceIds: r.deviceIds,
      groupId: r.groupId ?? '',
      variables: r.variables,
      fn: r.fn,
      cycle: r.cycle,
      timeZone: r.timeZone,
    }));
  };
  const query = () => ({
    ...(d.source === 'devices' ? { deviceIds: d.deviceIds } : { groupId: d.groupId }),
    variables: d.variables,
    fn: d.fn,
    cycle: d.cycle,
    timeZone: d.timeZone,
    from: new Date(d.from).toISOString(),
    to: new Date(d.to).toISOString(),
  });
  const complete = d.variables.length > 0 && (d.source === 'devices' ? d.deviceIds.length > 0 : !!d.groupId);
  const run = async () => {
    if (!complete) return notice.warning(t('report.incomplete'));
    try {
      setTable(await callRoute('report.run', { query: query() }));
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  const exportAs = (format: ReportFormat) => {
    if (!complete) return notice.warning(t('report.incomplete'));
    const name = current?.name ?? t('objects.report');
    void downloadRoute('report.export', { ...query(), format, name }, `${name}.${format}`).catch((e: unknown) =>
      notice.error(messageOf(e)),
    );
  };
  const remove = async () => {
    if (!current) return;
    if (!(await confirm({ message: t('common.deleteQuestion', { object: t('objects.report'), name: current.name }), danger: true })))
      return;
    try {
      await callRoute('report.delete', { query: { id: current.id } });
      notice.success(t('common.deleted'));
      setSavedId('');
      await client.invalidateQueries({ queryKey: [REPORTS] });
    } catch (e) {
      notice.error(messageOf(e));
    }
  };

  const deviceName = useMemo(() => new Map((table?.devices ?? []).map((x) => [x.id, `${x.name} (${x.sn})`])), [table]);
  const columnName = (c: Table['columns'][number]) => `${c.name ?? c.variable}${c.unit ? ` (${c.unit})` : ''}`;
  const series = useMemo(() => {
    if (!table) return [];
    const lines = new Map<string, { name: string; points: Array<[string, number | null]> }>();
    for (const row of table.rows) {
      row.values.forEach((value, i) => {
        const key = `${row.deviceId}|${i}`;
        if (!lines.has(key) && lines.size >= CHART_SERIES) return;
        const line = lines.get(key) ?? {
          name: `${deviceName.get(row.deviceId) ?? row.deviceId} · ${columnName(table.columns[i]!)}`,
          points: [],
        };
        line.points.push([row.time, value]);
        lines.set(key, line);
      });
    }
    return [...lines.values()];
  }, [table, deviceName]);

  return (
    <Flex direction="column" gap="3">
      <Card>
        <Flex direction="column" gap="3">
          <Flex gap="3" wrap="wrap" align="end">
            <Field label={t('report.saved')}>
              <Box minWidth="220px">
                <SelectInput
                  name="saved"
                  value={savedId}
                  onChange={load}
                  placeholder={t('report.newReport')}
                  options={(saved.data ?? []).map((r) => ({
                    value: r.id,
                    label: r.frequency === 'none' ? r.name : `${r.name} · ${t(`report.frequencies.${r.frequency}`)}`,
                  }))}
                />
              </Box>
            </Field>
            {current?.lastSentAt && (
              <Text size="1" color="gray">
                {t('report.lastSent')}: {formatDate(current.lastSentAt, true)}
              </Text>
            )}
            <Field label={t('report.product')}>
              <Box minWidth="220px">
                <SelectInput
                  name="productId"
                  value={d.productId}
                  onChange={(v) => setD((old) => ({ ...old, productId: v, deviceIds: [], variables: [] }))}
                  options={(products.data ?? []).map((p) => ({ value: p.id, label: `${p.name} (${p.code})` }))}
                  placeholder={t('report.chooseProduct')}
                />
              </Box>
            </Field>
            <Choices label={t('report.source')}>
              <RadioGroup.Root value={d.source} onValueChange={(v) => set('source', v as Definition['source'])} name="source">
                <Flex gap="3">
                  <RadioGroup.Item value="devices">{t('report.sources.devices')}</RadioGroup.Item>
                  <RadioGroup.Item value="group">{t('report.sources.group')}</RadioGroup.Item>
                </Flex>
              </RadioGroup.Root>
            </Choices>
            {d.source === 'group' && (
              <Field label={t('report.group')} required>
                <SelectInput
                  name="groupId"
                  value={d.groupId}
                  onChange={(v) => set('groupId', v)}
                  options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
                  placeholder={t('common.selectPlaceholder')}
                />
              </Field>
            )}
          </Flex>
          {d.source === 'devices' && (
            <Choices label={t('report.devices')} required>
              <ScrollArea type="auto" style={{ maxHeight: 120 }}>
                <CheckboxGroup.Root value={d.deviceIds} onValueChange={(v) => set('deviceIds', v)} name="deviceIds">
                  <Flex gap="3" wrap="wrap">
                    {(devices.data ?? []).map((x) => (
                      <CheckboxGroup.Item key={x.id} value={x.id}>
                        {x.name} ({x.sn})
                      </CheckboxGroup.Item>
                    ))}
                  </Flex>
                </CheckboxGroup.Root>
              </ScrollArea>
            </Choices>
          )}
          <Choices label={t('report.variables')} required>
            {properties.length === 0 && d.variables.length === 0 && (
              <Text size="1" color="gray">
                {t('report.chooseProduct')}
              </Text>
            )}
            <CheckboxGroup.Root value={d.variables} onValueChange={(v) => set('variables', v.slice(0, 10))} name="variables">
              <Flex gap="3" wrap="wrap">
                {[
                  ...properties,
                  ...d.variables.filter((v) => !properties.some((p) => p.value === v)).map((v) => ({ value: v, label: v })),
                ].map((p) => (
                  <CheckboxGroup.Item key={p.value} value={p.value}>
                    {p.label}
                  </CheckboxGroup.Item>
                ))}
              </Flex>
            </CheckboxGroup.Root>
          </Choices>
          <Flex gap="3" wrap="wrap" align="end">
            <Field label={t('report.fn')}>
              <SelectInput name="fn" value={d.fn} onChange={(v) => set('fn', v as Fn)} options={labelled(t, 'report.fns', reportFns)} />
            </Field>
            <Field label={t('report.cycle')}>
              <SelectInput
                name="cycle"
                value={d.cycle}
                onChange={(v) => set('cycle', v as Cycle)}
                options={labelled(t, 'report.cycles', reportCycles)}
              />
            </Field>
            <Field label={t('report.from')}>
              <DateTimeInput aria-label={t('report.from')} value={d.from} onChange={(v) => set('from', v)} />
            </Field>
            <Field label={t('report.to')}>
              <DateTimeInput aria-label={t('report.to')} value={d.to} onChange={(v) => set('to', v)} />
            </Field>
            <Field label={t('report.timeZone')}>
              <TextField.Root value={d.timeZone} onChange={(e) => set('timeZone', e.target.value)} />
            </Field>
          </Flex>
          <Flex gap="2" wrap="wrap">
            <Button onClick={() => void run()}>{t('report.run')}</Button>
            {can(me, reportPerm.export) &&
              reportFormats.map((f) => (
                <Button key={f} variant="soft" onClick={() => exportAs(f)}>
                  {t('report.exportAs', { format: f.toUpperCase() })}
                </Button>
              ))}
            {can(me, current ? reportPerm.edit : reportPerm.add) && (
              <Button variant="soft" onClick={() => (complete ? setSaving(true) : notice.warning(t('report.incomplete')))}>
                {t('report.save')}
              </Button>
            )}
            {current && can(me, reportPerm.delete) && (
              <Button variant="soft" color="red" onClick={() => void remove()}>
                {t('common.delete')}
              </Button>
            )}
          </Flex>
        </Flex>
      </Card>
      {table && table.rows.length === 0 && <Text color="gray">{t('report.none')}</Text>}
      {table && table.rows.length > 0 && (
        <>
          <Card>
            <TrendChart label={t('report.chart')} height={360} series={series} sharedAxis />
          </Card>
          {table.total > TABLE_ROWS && (
            <Text size="1" color="gray">
              {t('report.rowsShown', { total: table.total, shown: Math.min(TABLE_ROWS, REPORT_VIEW_ROWS) })}
            </Text>
          )}
          <Table.Root size="1" variant="surface" data-testid="report-table">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>{t('report.time')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('report.device')}</Table.ColumnHeaderCell>
                {table.columns.map((c) => (
                  <Table.ColumnHeaderCell key={c.variable}>{columnName(c)}</Table.ColumnHeaderCell>
                ))}
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {table.rows.slice(0, TABLE_ROWS).map((r) => (
                <Table.Row key={`${r.time}|${r.deviceId}`}>
                  <Table.Cell>{formatDate(r.time, true)}</Table.Cell>
                  <Table.Cell>{deviceName.get(r.deviceId) ?? r.deviceId}</Table.Cell>
                  {r.values.map((v, i) => (
                    <Table.Cell key={i}>{round(v)}</Table.Cell>
                  ))}
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </>
      )}
      {saving && (
        <SaveDialog
          open
          saved={current}
          definition={d}
          onClose={() => setSaving(false)}
          onSaved={(id) => {
            setSaving(false);
            setSavedId(id);
            void client.invalidateQueries({ queryKey: [REPORTS] });
          }}
        />
      )}
    </Flex>
  );
}
