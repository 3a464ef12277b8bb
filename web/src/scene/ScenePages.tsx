import './i18n.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { Box, Button, Callout, Card, Flex, Heading, Text, TextArea, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { comparisonOperators, sceneTriggers } from '@iot/contracts/constants.ts';
import { routes } from '@iot/contracts';
import { errorCatalogue } from '@iot/contracts/errors.ts';
import { linkageResults, sceneCreateBody } from '@iot/contracts/scene/model.ts';
import { scenePerm } from '@iot/contracts/scene/permissions.ts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { labelled, PermittedRowButton, statusColumn, useListChange, useEachDelete } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { Field, useForm, useRouteLeaveGuard } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { Ellipsis } from '../ui/Ellipsis.tsx';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput, StatusBadge } from '../ui/widgets.tsx';
import { chainName } from '../rule/chain-name.ts';

type SceneRow = Awaited<ReturnType<typeof callRoute<'scene.list'>>>['rows'][number];
type LogRow = Awaited<ReturnType<typeof callRoute<'linkageLog.list'>>>['rows'][number];
type RuleRow = Awaited<ReturnType<typeof callRoute<'rule.list'>>>['rows'][number];
const SCENES = 'scenes';
const LOG = 'linkageLog';

/** A notify action's "no device" choice (a select's value cannot be empty). */
const NO_DEVICE = 'none';
/** One trigger, condition or action as the form edits it: text fields by name, its kind in `type`. */
type Part = Record<string, string>;
const newTrigger = (): Part => ({
  type: 'timing',
  cron: '0 22 * * *',
  timeZone: 'Asia/Shanghai',
  deviceId: '',
  match: 'online',
  identifier: '',
  operator: 'gt',
  value: '',
});
const newCondition = (): Part => ({
  type: 'deviceStatus',
  deviceId: '',
  status: 'online',
  identifier: '',
  operator: 'gt',
  value: '',
  from: '08:00',
  to: '18:00',
  weekdays: '',
  timeZone: 'Asia/Shanghai',
});
const newAction = (): Part => ({
  type: 'setProperty',
  deviceId: '',
  identifier: '',
  value: '',
  params: '{}',
  deviceIds: '',
  onValue: '1',
  offValue: '0',
  sceneId: '',
  status: 'stopped',
  configId: '',
});

/** A typed value from what was typed: a number, true or false, JSON, or the text itself. */
function valueOf(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (!Number.isNaN(Number(trimmed))) return Number(trimmed);
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return trimmed;
  }
}
const textOf = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? ''));

function triggerBody(p: Part) {
  if (p.type === 'timing') return { type: 'timing', cron: p.cron, timeZone: p.timeZone };
  if (p.type === 'invoke') return { type: 'invoke' };
  const match =
    p.match === 'property'
      ? { kind: 'property', identifier: p.identifier, operator: p.operator, value: valueOf(p.value ?? '') }
      : { kind: 'status', status: p.match };
  return { type: 'device', deviceId: p.deviceId, match };
}
function conditionBody(p: Part) {
  if (p.type === 'deviceStatus') return { type: 'deviceStatus', deviceId: p.deviceId, status: p.status };
  if (p.type === 'deviceProperty')
    return { type: 'deviceProperty', deviceId: p.deviceId, identifier: p.identifier, operator: p.operator, value: valueOf(p.value ?? '') };
  const weekdays = (p.weekdays ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean)
    .map(Number);
  return { type: 'time', from: p.from, to: p.to, weekdays, timeZone: p.timeZone };
}
function actionBody(p: Part) {
  switch (p.type) {
    case 'setProperty':
      return { type: 'setProperty', deviceId: p.deviceId, identifier: p.identifier, value: valueOf(p.value ?? '') };
    case 'invokeService':
      return { type: 'invokeService', deviceId: p.deviceId, identifier: p.identifier, params: valueOf(p.params ?? '{}') };
    case 'rotation':
      return {
        type: 'rotation',
        deviceIds: (p.deviceIds ?? '').split(',').filter(Boolean),
        identifier: p.identifier,
        onValue: valueOf(p.onValue ?? ''),
        offValue: valueOf(p.offValue ?? ''),
      };
    case 'notify':
      return { type: 'notify', configId: p.configId, ...(p.deviceId && p.deviceId !== NO_DEVICE ? { deviceId: p.deviceId } : {}) };
    default:
      return { type: 'sceneStatus', sceneId: p.sceneId, status: p.status };
  }
}

/** A stored scene's parts as the form's text fields. */
function partsOf(scene: SceneRow) {
  const triggers = scene.triggers.map((raw) => {
    const tr = raw as { type: string; cron?: string; timeZone?: string; deviceId?: string; match?: Record<string, unknown> };
    const m = tr.match ?? {};
    return {
      ...newTrigger(),
      type: tr.type,
      ...(tr.cron ? { cron: tr.cron, timeZone: tr.timeZone ?? 'Asia/Shanghai' } : {}),
      ...(tr.deviceId ? { deviceId: tr.deviceId } : {}),
      ...(m.kind === 'property'
        ? { match: 'property', identifier: String(m.identifier), operator: String(m.operator), value: textOf(m.value) }
        : m.kind === 'status'
          ? { match: String(m.status) }
          : {}),
    };
  });
  const conditions = scene.conditions.map((raw) => {
    const c = raw as Record<string, unknown>;
    return {
      ...newCondition(),
      ...Object.fromEntries(Object.entries(c).map(([k, v]) => [k, k === 'weekdays' ? (v as number[]).join(',') : textOf(v)])),
    };
  });
  const actions = scene.actions.map((raw) => {
    const a = raw as Record<string, unknown>;
    return {
      ...newAction(),
      ...Object.fromEntries(
        Object.entries(a).map(([k, v]) => [
          k,
          k === 'deviceIds' ? (v as string[]).join(',') : k === 'params' ? JSON.stringify(v) : textOf(v),
        ]),
      ),
    };
  });
  return { triggers, conditions, actions };
}

function useDeviceOptions() {
  return useQuery({
    queryKey: ['devices', 'options'],
    queryFn: async () =>
      (await callRoute('device.list', { query: { pageSize: 500 } })).rows.map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` })),
  });
}
function useSceneOptions() {
  return useQuery({
    queryKey: [SCENES, 'options'],
    queryFn: async () => (await callRoute('scene.list', { query: { pageSize: 500 } })).rows.map((s) => ({ value: s.id, label: s.name })),
  });
}

/** The notification configurations a notify action sends through: asked only of a user who may list them. */
function useNotifyConfigOptions() {
  const me = useSession();
  return useQuery({
    queryKey: ['notifyConfigs', 'options'],
    enabled: can(me, routes['notifyConfig.list'].permission),
    retry: false,
    queryFn: async () =>
      (await callRoute('notifyConfig.list', { query: { pageSize: 500 } }, { noRedirect: true })).rows.map((c) => ({
        value: c.id,
        label: c.name,
      })),
  });
}

/** One trigger, condition or action: its kind and the fields that kind takes. */
function PartEditor({
  part,
  kinds,
  kindPrefix,
  onChange,
  onRemove,
  label,
}: {
  part: Part;
  kinds: readonly string[];
  kindPrefix: string;
  onChange: (next: Part) => void;
  onRemove: () => void;
  label: string;
}) {
  const { t } = useTranslation();
  const devices = useDeviceOptions();
  const scenes = useSceneOptions();
  const configs = useNotifyConfigOptions();
  const set = (key: string) => (value: string) => onChange({ ...part, [key]: value });
  const text = (key: string, title: string, hint?: string) => (
    <Field label={title} hint={hint}>
      <TextField.Root name={key} value={part[key] ?? ''} onChange={(e) => set(key)(e.target.value)} />
    </Field>
  );
  const select = (key: string, title: string, options: Array<{ value: string; label: string }>) => (
    <Field label={title}>
      <SelectInput name={key} value={part[key] || null} onChange={set(key)} options={options} />
    </Field>
  );
  const device = select('deviceId', t('scene.device'), devices.data ?? []);
  const operators = labelled(t, 'scene.operators', comparisonOperators);
  const property = (
    <>
      {text('identifier', t('scene.identifier'))}
      {select('operator', t('scene.operator'), operators)}
      {text('value', t('scene.value'))}
    </>
  );
  let fields: React.ReactNode = null;
  switch (part.type) {
    case 'timing':
      fields = (
        <>
          {text('cron', t('scene.cron'), t('scene.cronHint'))}
          {text('timeZone', t('scene.timeZone'))}
        </>
      );
      break;
    case 'device':
      fields = (
        <>
          {device}
          {select('match', t('scene.match'), labelled(t, 'scene.matches', ['online', 'offline', 'property']))}
          {part.match === 'property' && property}
        </>
      );
      break;
    case 'deviceStatus':
      fields = (
        <>
          {device}
          {select('status', t('scene.deviceStatus'), labelled(t, 'scene.statuses', ['online', 'offline']))}
        </>
      );
      break;
    case 'deviceProperty':
      fields = (
        <>
          {device}
          {property}
        </>
      );
      break;
    case 'time':
      fields = (
        <>
          {text('from', t('scene.from'))}
          {text('to', t('scene.to'))}
          {text('weekdays', t('scene.weekdays'))}
          {text('timeZone', t('scene.timeZone'))}
        </>
      );
      break;
    case 'setProperty':
      fields = (
        <>
          {device}
          {text('identifier', t('scene.identifier'))}
          {text('value', t('scene.value'))}
        </>
      );
      break;
    case 'invokeService':
      fields = (
        <>
          {device}
          {text('identifier', t('scene.identifier'))}
          <Field label={t('scene.params')}>
            <TextArea name="params" value={part.params ?? ''} onChange={(e) => set('params')(e.target.value)} />
          </Field>
        </>
      );
      break;
    case 'rotation': {
      const chosen = (part.deviceIds ?? '').split(',').filter(Boolean);
      fields = (
        <>
          <Field label={t('scene.devices')} hint={t('scene.devicesHint')}>
            <Flex gap="2" wrap="wrap">
              {(devices.data ?? []).map((d) => {
                const on = chosen.includes(d.value);
                return (
                  <Button
                    key={d.value}
                    type="button"
                    size="1"
                    variant={on ? 'solid' : 'outline'}
                    onClick={() => set('deviceIds')((on ? chosen.filter((id) => id !== d.value) : [...chosen, d.value]).join(','))}
                  >
                    {on ? `${chosen.indexOf(d.value) + 1}. ` : ''}
                    {d.label}
                  </Button>
                );
              })}
            </Flex>
          </Field>
          {text('identifier', t('scene.identifier'))}
          {text('onValue', t('scene.onValue'))}
          {text('offValue', t('scene.offValue'))}
        </>
      );
      break;
    }
    case 'notify':
      fields = (
        <>
          <Field label={t('scene.notifyConfig')} hint={t('scene.notifyConfigHint')}>
            <SelectInput name="configId" value={part.configId || null} onChange={set('configId')} options={configs.data ?? []} />
          </Field>
          <Field label={t('scene.notifyDevice')}>
            <SelectInput
              name="deviceId"
              value={part.deviceId || null}
              onChange={set('deviceId')}
              options={[{ value: NO_DEVICE, label: '—' }, ...(devices.data ?? [])]}
            />
          </Field>
        </>
      );
      break;
    case 'sceneStatus':
      fields = (
        <>
          {select('sceneId', t('scene.targetScene'), scenes.data ?? [])}
          {select('status', t('scene.targetStatus'), [
            { value: 'enabled', label: t('scene.enable') },
            { value: 'stopped', label: t('scene.stop') },
          ])}
        </>
      );
      break;
  }
  return (
    <Card mb="2" data-part={label}>
      <Flex justify="between" align="center" mb="2">
        <Box width="240px">
          <SelectInput
            name={`${label}-type`}
            value={part.type}
            onChange={(type) => onChange({ ...part, type })}
            options={labelled(t, kindPrefix, kinds)}
          />
        </Box>
        <Button type="button" size="1" variant="ghost" color="red" onClick={onRemove}>
          {t('scene.remove')}
        </Button>
      </Flex>
      <div className="form-grid">{fields}</div>
    </Card>
  );
}

/** The problems of a scene's form, one line each, in the caller's language where the catalogue names one. */
function problemsOf(issues: Array<{ path: PropertyKey[]; message: string }>, lang: string): string[] {
  return issues.map((issue) => {
    const known = (errorCatalogue as Record<string, { zh: string; en: string }>)[issue.message];
    const message = known ? (lang.startsWith('en') ? known.en : known.zh) : issue.message;
    return `${issue.path.map(String).join('.')}: ${message}`;
  });
}

const emptyScene = { name: '', description: '', conditionMode: 'all' };

/** Scene design (spec §2 "Scene configuration design"): triggers, conditions and actions of one scene, new or opened from the list. */
export function SceneDesignPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const id = params.get('id');
  const form = useForm(emptyScene);
  const [triggers, setTriggers] = useState<Part[]>([newTrigger()]);
  const [conditions, setConditions] = useState<Part[]>([]);
  const [actions, setActions] = useState<Part[]>([newAction()]);
  const [start, setStart] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const existing = useQuery({
    queryKey: [SCENES, 'detail', id],
    enabled: id !== null,
    queryFn: () => callRoute('scene.detail', { query: { id: id! } }),
  });
  const snapshot = JSON.stringify([form.values, triggers, conditions, actions]);
  useEffect(() => {
    const scene = existing.data;
    if (!scene) return;
    const parts = partsOf(scene);
    const values = { name: scene.name, description: scene.description ?? '', conditionMode: scene.conditionMode };
    form.reset(values);
    setTriggers(parts.triggers);
    setConditions(parts.conditions);
    setActions(parts.actions);
    setStart(JSON.stringify([values, parts.triggers, parts.conditions, parts.actions]));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per loaded scene
  }, [existing.data]);
  useEffect(() => {
    if (id === null && start === '') setStart(snapshot);
  }, [id, start, snapshot]);
  const dirty = start !== '' && snapshot !== start && !busy;
  useRouteLeaveGuard(dirty);

  const save = async () => {
    const body = {
      name: form.values.name,
      description: form.values.description || null,
      conditionMode: form.values.conditionMode,
      triggers: triggers.map(triggerBody),
      conditions: conditions.map(conditionBody),
      actions: actions.map(actionBody),
    };
    const checked = sceneCreateBody.safeParse(body);
    if (!checked.success) {
      setProblems(problemsOf(checked.error.issues, i18n.language));
      return;
    }
    setProblems([]);
    setBusy(true);
    try {
      if (id) await callRoute('scene.update', { body: { ...checked.data, id } });
      else await callRoute('scene.create', { body: checked.data });
      notice.success(t(id ? 'scene.saved' : 'scene.created'));
      setStart(snapshot);
      await queryClient.invalidateQueries({ queryKey: [SCENES] });
      void navigate('/scene/linkage');
    } catch (error) {
      setProblems([error instanceof Error ? error.message : String(error)]);
    } finally {
      setBusy(false);
    }
  };

  const section = (
    title: string,
    parts: Part[],
    setParts: (p: Part[]) => void,
    kinds: readonly string[],
    prefix: string,
    make: () => Part,
    addLabel: string,
    name: string,
    head?: React.ReactNode,
  ) => (
    <Box mb="4" mt="4">
      <Heading size="3" mb="2">
        {title}
      </Heading>
      {head}
      {parts.map((part, i) => (
        <PartEditor
          key={i}
          label={`${name}-${i}`}
          part={part}
          kinds={kinds}
          kindPrefix={prefix}
          onChange={(next) => setParts(parts.map((p, j) => (j === i ? next : p)))}
          onRemove={() => setParts(parts.filter((_, j) => j !== i))}
        />
      ))}
      <Button type="button" variant="soft" size="1" onClick={() => setParts([...parts, make()])}>
        {addLabel}
      </Button>
    </Box>
  );

  return (
    <Box p="4" maxWidth="960px">
      <Flex justify="between" align="center" mb="3">
        <Heading size="4">{id ? t('scene.edit') : t('scene.add')}</Heading>
        <Button variant="ghost" onClick={() => void navigate('/scene/linkage')}>
          {t('scene.back')}
        </Button>
      </Flex>
      {problems.length > 0 && (
        <Callout.Root color="red" mb="3" role="alert">
          <Callout.Text>
            {problems.map((p) => (
              <span key={p} style={{ display: 'block' }}>
                {p}
              </span>
            ))}
          </Callout.Text>
        </Callout.Root>
      )}
      <div className="form-grid">
        <Field label={t('scene.name')} required error={form.errors.name}>
          <TextField.Root {...form.input('name')} />
        </Field>
        <Field label={t('scene.description')}>
          <TextField.Root {...form.input('description')} />
        </Field>
      </div>
      {section(
        t('scene.triggers'),
        triggers,
        setTriggers,
        sceneTriggers,
        'scene.triggerTypes',
        newTrigger,
        t('scene.addTrigger'),
        'trigger',
      )}
      {section(
        t('scene.conditions'),
        conditions,
        setConditions,
        ['deviceStatus', 'deviceProperty', 'time'],
        'scene.conditionTypes',
        newCondition,
        t('scene.addCondition'),
        'condition',
        conditions.length === 0 ? (
          <Text as="p" size="1" color="gray" mb="2">
            {t('scene.noCondition')}
          </Text>
        ) : (
          <Box mb="2" width="240px">
            <Field label={t('scene.conditionMode')}>
              <SelectInput {...form.select('conditionMode')} options={labelled(t, 'scene.conditionModes', ['all', 'any'])} />
            </Field>
          </Box>
        ),
      )}
      {section(
        t('scene.actions'),
        actions,
        setActions,
        ['setProperty', 'invokeService', 'rotation', 'notify', 'sceneStatus'],
        'scene.actionTypes',
        newAction,
        t('scene.addAction'),
        'action',
      )}
      <Flex gap="2" justify="end">
        <Button variant="soft" color="gray" onClick={() => void navigate('/scene/linkage')}>
          {t('common.cancel')}
        </Button>
        <Button disabled={busy} onClick={() => void save()}>
          {t('common.save')}
        </Button>
      </Flex>
    </Box>
  );
}

/** Scene linkage (spec §3): the scenes with status and latest run; enable, stop and run now after a confirm. */
export function SceneLinkagePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const me = useSession();
  const change = useListChange(SCENES);
  const deleteRows = useEachDelete<SceneRow>(SCENES, 'scene.delete', t('objects.scene'), (r) => r.name);
  const toggle = (r: SceneRow) => {
    const status = r.status === 'enabled' ? 'stopped' : 'enabled';
    void change(
      () => callRoute('scene.status', { body: { id: r.id, status } }),
      t(status === 'enabled' ? 'scene.enabled' : 'scene.stopped'),
      { message: t(status === 'enabled' ? 'scene.enableQuestion' : 'scene.stopQuestion', { name: r.name }), danger: status === 'stopped' },
    );
  };
  const invoke = (r: SceneRow) =>
    void change(() => callRoute('scene.invoke', { body: { id: r.id } }), t('scene.invoked'), {
      message: t('scene.invokeQuestion', { name: r.name }),
    });
  const columns: ListColumn<SceneRow>[] = [
    { id: 'name', header: t('scene.name'), value: (r) => r.name, sortable: true, width: 160 },
    { id: 'description', header: t('scene.description'), value: (r) => r.description, width: 200 },
    {
      id: 'triggers',
      header: t('scene.triggers'),
      value: (r) => [...new Set(r.triggers.map((x) => t(`scene.triggerTypes.${(x as { type: string }).type}`)))].join(', '),
      width: 160,
    },
    statusColumn<SceneRow>(t, t('scene.status'), 90),
    { id: 'lastRun', header: t('scene.lastRun'), value: (r) => formatDate(r.lastRunTime, true), width: 150 },
    { id: 'createTime', header: t('scene.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 150 },
  ];
  return (
    <ListPage<SceneRow>
      queryKey={SCENES}
      route="scene.list"
      exportName={t('objects.scene')}
      columns={columns}
      defaultSort={{ sort: 'createTime', order: 'desc' }}
      filters={[
        { name: 'name', label: t('scene.name') },
        { name: 'status', label: t('scene.status'), type: 'select', options: labelled(t, 'status', ['enabled', 'stopped']) },
      ]}
      rowActions={(r) => (
        <Flex gap="2">
          <PermittedRowButton
            permission={scenePerm.enable}
            label={t(r.status === 'enabled' ? 'scene.stop' : 'scene.enable')}
            danger={r.status === 'enabled'}
            onClick={() => toggle(r)}
          />
          {r.status === 'enabled' && r.triggers.some((x) => (x as { type: string }).type === 'invoke') && (
            <PermittedRowButton permission={scenePerm.invoke} label={t('scene.invoke')} onClick={() => invoke(r)} />
          )}
          {can(me, scenePerm.edit) && (
            <PermittedRowButton
              permission={scenePerm.edit}
              label={t('common.edit')}
              onClick={() => void navigate(`/scene/design?id=${r.id}`)}
            />
          )}
          <PermittedRowButton
            permission={scenePerm.logList}
            label={t('scene.log')}
            onClick={() => void navigate(`/scene/linkageLog?sceneId=${r.id}`)}
          />
        </Flex>
      )}
      actions={[
        { label: t('scene.add'), permission: scenePerm.add, select: 'none', onClick: () => void navigate('/scene/design') },
        {
          label: t('common.delete'),
          permission: scenePerm.delete,
          select: 'some',
          color: 'red',
          onClick: deleteRows,
        },
      ]}
    />
  );
}

/** A condition of a run in one line: its kind, what was found, and whether it held. */
const conditionLine = (t: (key: string) => string, c: LogRow['conditions'][number]) =>
  `${t(`scene.conditionTypes.${(c.condition as { type: string }).type}`)}${c.detail ? ` (${c.detail})` : ''}: ${c.result ? '✓' : '✗'}`;
/** An action of a run in one line: its kind, the device by name, and its outcome. */
const actionLine = (t: (key: string) => string, names: Map<string, string>, a: LogRow['actions'][number]) => {
  const target = a.target ? a.target.replace(/^[^ ]+/, (id) => names.get(id) ?? id) : null;
  return `${t(`scene.actionTypes.${(a.action as { type: string }).type}`)}${target ? ` → ${target}` : ''}: ${a.ok ? '✓' : `✗ ${a.error ?? ''}`}`;
};

/** The linkage log (spec §3): every run with its trigger, each condition's result, the actions, duration and time. */
export function LinkageLogPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const scenes = useSceneOptions();
  const devices = useDeviceOptions();
  const names = new Map((devices.data ?? []).map((d) => [d.value, d.label]));
  const sceneId = params.get('sceneId');
  const columns: ListColumn<LogRow>[] = [
    { id: 'time', header: t('linkage.time'), value: (r) => formatDate(r.time, true), sortable: true, width: 150 },
    { id: 'sceneName', header: t('linkage.scene'), value: (r) => r.sceneName, width: 130 },
    { id: 'triggerType', header: t('linkage.triggerType'), value: (r) => t(`scene.triggerTypes.${r.triggerType}`), width: 110 },
    { id: 'triggerContent', header: t('linkage.triggerContent'), value: (r) => r.triggerContent, width: 220 },
    {
      id: 'conditions',
      header: t('linkage.conditions'),
      value: (r) => r.conditions.map((c) => conditionLine(t, c)).join('; '),
      width: 200,
    },
    {
      id: 'actions',
      header: t('linkage.actions'),
      value: (r) => r.actions.map((a) => actionLine(t, names, a)).join('; '),
      cell: (r) => <Ellipsis value={r.actions.map((a) => actionLine(t, names, a)).join('; ')} />,
      width: 220,
    },
    {
      id: 'result',
      header: t('linkage.result'),
      value: (r) => t(`linkage.results.${r.result}`),
      cell: (r) => (
        <Text color={r.result === 'success' ? 'green' : r.result === 'skipped' || r.result === 'running' ? 'gray' : 'red'}>
          {t(`linkage.results.${r.result}`)}
        </Text>
      ),
      width: 100,
    },
    { id: 'durationMs', header: t('linkage.duration'), value: (r) => r.durationMs, sortable: true, width: 90 },
  ];
  return (
    <ListPage<LogRow>
      queryKey={LOG}
      route="linkageLog.list"
      exportName={t('linkage.title')}
      columns={columns}
      selectable={false}
      defaultSort={{ sort: 'time', order: 'desc' }}
      params={sceneId ? { sceneId } : undefined}
      filters={[
        { name: 'sceneId', label: t('linkage.scene'), type: 'select', options: scenes.data ?? [] },
        { name: 'result', label: t('linkage.result'), type: 'select', options: labelled(t, 'linkage.results', linkageResults) },
        { name: 'triggerType', label: t('linkage.triggerType'), type: 'select', options: labelled(t, 'scene.triggerTypes', sceneTriggers) },
        { name: 'from', label: t('linkage.from'), type: 'datetime' },
        { name: 'to', label: t('linkage.to'), type: 'datetime' },
      ]}
    />
  );
}

const screenOf: Record<RuleRow['kind'], (r: RuleRow) => string> = {
  alarmRule: () => '/alarm/settings',
  ruleChain: (r) => `/rule/chainEditor?id=${r.id}`,
  scene: (r) => `/scene/design?id=${r.id}`,
};

/**
 * The rule list (spec §2): every rule of the tenant in one place, whatever made it: alarm rules, rule chains and
 * scenes, with kind, status and when each last fired; a row opens the rule in its own screen.
 */
export function RuleListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const columns: ListColumn<RuleRow>[] = [
    { id: 'kind', header: t('ruleList.kind'), value: (r) => t(`ruleList.kinds.${r.kind}`), width: 110 },
    {
      id: 'name',
      header: t('ruleList.name'),
      value: (r) => (r.kind === 'ruleChain' ? chainName(t, r) : r.name),
      sortable: true,
      width: 180,
    },
    {
      id: 'status',
      header: t('ruleList.status'),
      value: (r) => t(`status.${r.status}`),
      cell: (r) => <StatusBadge value={r.status} />,
      width: 90,
    },
    {
      id: 'summary',
      header: t('ruleList.summary'),
      // A scene's summary is its trigger types: named in the reader's language.
      value: (r) =>
        r.kind === 'scene'
          ? r.summary
              .split(', ')
              .map((type) => t(`scene.triggerTypes.${type}`))
              .join(', ')
          : r.summary,
      width: 240,
    },
    {
      id: 'lastTriggerTime',
      header: t('ruleList.lastTrigger'),
      value: (r) => formatDate(r.lastTriggerTime, true),
      sortable: true,
      width: 150,
    },
    { id: 'updateTime', header: t('ruleList.updateTime'), value: (r) => formatDate(r.updateTime, true), sortable: true, width: 150 },
  ];
  return (
    <ListPage<RuleRow>
      queryKey="ruleList"
      route="rule.list"
      exportName={t('ruleList.title')}
      columns={columns}
      selectable={false}
      rowId={(r) => `${r.kind}:${r.id}`}
      defaultSort={{ sort: 'updateTime', order: 'desc' }}
      filters={[
        {
          name: 'kind',
          label: t('ruleList.kind'),
          type: 'select',
          options: labelled(t, 'ruleList.kinds', ['alarmRule', 'ruleChain', 'scene']),
        },
        { name: 'name', label: t('ruleList.name') },
        { name: 'status', label: t('ruleList.status'), type: 'select', options: labelled(t, 'status', ['enabled', 'stopped']) },
      ]}
      rowActions={(r) => (
        <Button size="1" variant="ghost" onClick={() => void navigate(screenOf[r.kind](r))}>
          {t('ruleList.open')}
        </Button>
      )}
    />
  );
}
