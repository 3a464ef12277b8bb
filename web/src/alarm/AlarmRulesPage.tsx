import './i18n.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Checkbox, Flex, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { ALARM_CATEGORY_DICT, alarmModes, alarmPerm, alarmPush, alarmTypes, comparisonOperators, ruleTriggers } from '@iot/contracts';
import { callRoute } from '../api/client.ts';
import { crudActions, useBulkDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput, StatusBadge } from '../ui/widgets.tsx';
import { LevelBadge } from './common.tsx';

type RuleRow = Awaited<ReturnType<typeof callRoute<'alarmRule.list'>>>['rows'][number];
const RULES = 'alarmRules';

const empty = {
  id: '',
  name: '',
  productId: '',
  deviceId: '',
  variable: '',
  type: 'cloud',
  category: '',
  mode: 'crossUpper',
  operator: 'gt',
  threshold: '',
  lowOperator: 'lt',
  lowThreshold: '',
  level: '3',
  trigger: 'first',
  push: 'firstTime',
  pushIntervalMin: '',
  faultFlag: false,
  cause: '',
  suggestion: '',
  autoClear: true,
  durationSec: '0',
  durationSamples: '0',
  deadband: '0',
  status: 'enabled',
};
type Values = typeof empty;
const num = (v: string) => (v.trim() === '' ? null : Number(v));

function RuleDialog({ editing, onClose }: { editing: RuleRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<Values, RuleRow | 'new'>({
    editing,
    empty,
    queryKey: RULES,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? (Object.fromEntries(
            Object.entries(empty).map(([k, def]) => {
              const v = (e as Record<string, unknown>)[k];
              return [k, typeof def === 'boolean' ? Boolean(v) : v === null || v === undefined ? '' : String(v)];
            }),
          ) as Values)
        : empty,
  });
  const v = form.values;
  const products = useQuery({
    queryKey: ['products', 'options'],
    enabled: editing !== null,
    queryFn: async () =>
      (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({ value: p.id, label: `${p.name} (${p.code})` })),
  });
  const product = useQuery({
    queryKey: ['products', 'detail', v.productId],
    enabled: !!v.productId,
    queryFn: () => callRoute('product.detail', { query: { id: v.productId } }),
  });
  const devices = useQuery({
    queryKey: ['devices', 'byProduct', v.productId],
    enabled: !!v.productId,
    queryFn: async () =>
      (await callRoute('device.list', { query: { productId: v.productId, pageSize: 500 } })).rows.map((d) => ({
        value: d.id,
        label: `${d.name} (${d.sn})`,
      })),
  });
  // Categories are the tenant's dictionary `alarm_category` (system → dictionaries); without one, free text.
  const categories = useQuery({
    queryKey: ['dicts', 'items', ALARM_CATEGORY_DICT],
    enabled: editing !== null,
    queryFn: async () =>
      (
        await callRoute('dict.items', { query: { code: ALARM_CATEGORY_DICT, pageSize: 200 } }, { noRedirect: true }).catch(() => ({
          rows: [],
        }))
      ).rows.map((i) => ({ value: i.value, label: i.label })),
  });
  const variables = (product.data?.functions ?? [])
    .filter((f) => (v.mode === 'event' ? f.type === 'event' : f.type === 'property'))
    .map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }));
  const options = (prefix: string, values: readonly (string | number)[]) =>
    values.map((x) => ({ value: String(x), label: t(`${prefix}.${x}`) }));
  const submit = async () => {
    const body = {
      name: v.name,
      productId: v.productId,
      deviceId: v.deviceId || null,
      variable: v.variable,
      type: v.type,
      category: v.category || null,
      mode: v.mode,
      operator: v.operator,
      threshold: num(v.threshold),
      lowOperator: v.lowOperator,
      lowThreshold: num(v.lowThreshold),
      level: Number(v.level),
      trigger: v.trigger,
      push: v.push,
      pushIntervalMin: num(v.pushIntervalMin),
      faultFlag: v.faultFlag,
      cause: v.cause || null,
      suggestion: v.suggestion || null,
      autoClear: v.autoClear,
      durationSec: num(v.durationSec) ?? 0,
      durationSamples: num(v.durationSamples) ?? 0,
      deadband: num(v.deadband) ?? 0,
      status: v.status,
    };
    const checked = checkBody(creating ? 'alarmRule.create' : 'alarmRule.update', creating ? body : { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const text = (k: keyof Values, label: string, required = false, type: 'text' | 'number' = 'text') => (
    <Field label={label} required={required} error={form.errors[k]}>
      <TextField.Root name={k} type={type} value={String(v[k])} onChange={(e) => form.set(k, e.target.value)} />
    </Field>
  );
  const select = (k: keyof Values, label: string, opts: { value: string; label: string }[], required = false) => (
    <Field label={label} required={required} error={form.errors[k]}>
      <SelectInput
        name={k}
        value={String(v[k])}
        onChange={(x) => form.set(k, x)}
        options={opts}
        placeholder={t('common.selectPlaceholder')}
      />
    </Field>
  );
  const check = (k: 'faultFlag' | 'autoClear', label: string) => (
    <Flex gap="2" align="center" asChild>
      <label>
        <Checkbox name={k} checked={v[k]} onCheckedChange={(c) => form.set(k, c === true)} />
        {label}
      </label>
    </Flex>
  );
  return (
    <FormDialog
      {...dialog}
      width="760px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.alarmRule') })}
      onSubmit={() => void submit()}
    >
      <div className="form-grid two">
        {text('name', t('alarm.name'), true)}
        {select('productId', t('alarm.product'), products.data ?? [], true)}
        {select('deviceId', t('alarm.scopeDevice'), [{ value: '', label: t('common.all') }, ...(devices.data ?? [])])}
        {select('mode', t('alarm.mode'), options('alarm.modes', alarmModes), true)}
        {select('variable', t('alarm.variable'), variables, true)}
        {select('type', t('alarm.type'), options('alarm.types', alarmTypes), true)}
        {v.mode !== 'event' && select('operator', t('alarm.operator'), options('alarm.operators', comparisonOperators))}
        {v.mode !== 'event' && text('threshold', t('alarm.threshold'), true, 'number')}
        {v.mode === 'crossBoth' && select('lowOperator', t('alarm.lowOperator'), options('alarm.operators', comparisonOperators))}
        {v.mode === 'crossBoth' && text('lowThreshold', t('alarm.lowThreshold'), true, 'number')}
        {select('level', t('alarm.level'), options('alarm.levels', [1, 2, 3, 4, 5]), true)}
        {categories.data?.length ? select('category', t('alarm.category'), categories.data) : text('category', t('alarm.category'))}
        {select('trigger', t('alarm.trigger'), options('alarm.triggers', ruleTriggers))}
        {select('push', t('alarm.push'), options('alarm.pushes', alarmPush))}
        {v.push === 'interval' && text('pushIntervalMin', t('alarm.pushIntervalMin'), true, 'number')}
        {text('durationSec', t('alarm.durationSec'), false, 'number')}
        {text('durationSamples', t('alarm.durationSamples'), false, 'number')}
        {text('deadband', t('alarm.deadband'), false, 'number')}
        {text('cause', t('alarm.cause'))}
        {text('suggestion', t('alarm.suggestion'))}
        {select('status', t('alarm.status'), [
          { value: 'enabled', label: t('status.enabled') },
          { value: 'stopped', label: t('status.stopped') },
        ])}
      </div>
      <Flex gap="5">
        {check('faultFlag', t('alarm.faultFlag'))}
        {check('autoClear', t('alarm.autoClear'))}
      </Flex>
    </FormDialog>
  );
}

/** Alarm settings (spec §2, §3 Alarm): rules per product or device on a property or event of its thing model. */
export function AlarmRulesPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<RuleRow | 'new' | null>(null);
  const deleteRows = useBulkDelete<RuleRow>(RULES, 'alarmRule.delete', t('objects.alarmRule'), (r) => r.name);
  const sign: Record<string, string> = { gt: '>', gte: '≥', eq: '=', lt: '<', lte: '≤' };
  const columns: ListColumn<RuleRow>[] = [
    { id: 'name', header: t('alarm.name'), value: (r) => r.name, sortable: true, width: 140 },
    { id: 'product', header: t('alarm.product'), value: (r) => r.productName, width: 120 },
    { id: 'device', header: t('alarm.device'), value: (r) => r.deviceName ?? t('common.all'), width: 120 },
    { id: 'variable', header: t('alarm.variable'), value: (r) => r.variable, width: 110 },
    { id: 'mode', header: t('alarm.mode'), value: (r) => t(`alarm.modes.${r.mode}`), width: 90 },
    {
      id: 'threshold',
      header: t('alarm.threshold'),
      value: (r) =>
        r.mode === 'event'
          ? null
          : r.mode === 'crossBoth'
            ? `${sign[r.lowOperator]} ${r.lowThreshold} | ${sign[r.operator]} ${r.threshold}`
            : `${sign[r.operator]} ${r.threshold}`,
      width: 110,
    },
    {
      id: 'level',
      header: t('alarm.level'),
      value: (r) => t(`alarm.levels.${r.level}`),
      cell: (r) => <LevelBadge level={r.level} />,
      sortable: true,
      width: 90,
    },
    { id: 'type', header: t('alarm.type'), value: (r) => t(`alarm.types.${r.type}`), width: 90 },
    { id: 'trigger', header: t('alarm.trigger'), value: (r) => t(`alarm.triggers.${r.trigger}`), width: 70 },
    { id: 'duration', header: t('alarm.durationSec'), value: (r) => r.durationSec, width: 80 },
    { id: 'deadband', header: t('alarm.deadband'), value: (r) => r.deadband, width: 80 },
    { id: 'autoClear', header: t('alarm.autoClear'), value: (r) => t(r.autoClear ? 'alarm.yes' : 'alarm.no'), width: 80 },
    {
      id: 'status',
      header: t('alarm.status'),
      value: (r) => t(`status.${r.status}`),
      cell: (r) => <StatusBadge value={r.status} />,
      width: 80,
    },
    { id: 'createTime', header: t('common.createdAt'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<RuleRow>
        queryKey={RULES}
        route="alarmRule.list"
        exportName={t('alarm.rule')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('alarm.name') }]}
        actions={crudActions<RuleRow>(
          t,
          { add: alarmPerm.ruleAdd, edit: alarmPerm.ruleEdit, delete: alarmPerm.ruleDelete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <RuleDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}
