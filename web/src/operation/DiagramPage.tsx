import './i18n.ts';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  Background,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  applyNodeChanges,
  type Node,
  type NodeChange,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Badge, Box, Button, Card, Dialog, Flex, Heading, SegmentedControl, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { widgetKinds, type DiagramRow, type DiagramValue, type WidgetKind } from '@iot/contracts/diagram/model.ts';
import { operationPerm } from '@iot/contracts/operation/permissions.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { deleteQuestion } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { useRouteLeaveGuard } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { Topology } from './Topology.tsx';

const DIAGRAMS = 'diagrams';
type Widget = DiagramRow['widgets'][number];
type Draft = Pick<DiagramRow, 'name' | 'remark' | 'background' | 'widgets'>;
type WidgetData = { widget: Widget; value: DiagramValue | undefined; editing: boolean; labels: Record<WidgetKind, string> };
type WidgetNode = Node<WidgetData, 'widget'>;
const VALUE_REFRESH_MS = 5_000;

const valueKey = (deviceId: string | null, property: string | null) => `${deviceId}/${property}`;

/** A lamp is lit at its value, or at any non-zero value when none is set. */
const lit = (w: Widget, v: DiagramValue | undefined) => v?.value != null && (w.onValue === null ? v.value !== 0 : v.value === w.onValue);

function Gauge({ widget, value }: { widget: Widget; value: DiagramValue | undefined }) {
  const min = widget.min ?? 0;
  const max = widget.max ?? 100;
  const share = value?.value == null ? 0 : Math.min(1, Math.max(0, (value.value - min) / (max - min)));
  // A half circle: the arc's end at the share of 180 degrees.
  const angle = Math.PI * (1 - share);
  const [x, y] = [50 + 40 * Math.cos(angle), 50 - 40 * Math.sin(angle)];
  return (
    <svg width="120" height="70" viewBox="0 0 100 58" aria-hidden>
      <path d="M10 50 A40 40 0 0 1 90 50" fill="none" stroke="#2A3F6E" strokeWidth="8" />
      {share > 0 && <path d={`M10 50 A40 40 0 0 1 ${x.toFixed(2)} ${y.toFixed(2)}`} fill="none" stroke="#4CC3FF" strokeWidth="8" />}
      <text x="10" y="58" fontSize="7" fill="#8FB0F0">
        {min}
      </text>
      <text x="90" y="58" fontSize="7" fill="#8FB0F0" textAnchor="end">
        {max}
      </text>
    </svg>
  );
}

/** One widget on the canvas: its title, then its live value as a label, a lamp or a gauge. */
function WidgetView({ data, selected }: NodeProps<WidgetNode>) {
  const { t } = useTranslation();
  const { widget, value } = data;
  const bound = widget.deviceId !== null;
  return (
    <div
      className="diagram-widget"
      data-testid={`widget-${widget.id}`}
      style={{
        minWidth: 110,
        padding: '6px 10px',
        borderRadius: 6,
        color: '#E6EFFF',
        background: 'rgba(10, 24, 56, 0.85)',
        border: `1px solid ${selected && data.editing ? '#4CC3FF' : '#35508A'}`,
        textAlign: 'center',
      }}
    >
      <div style={{ fontSize: 12, color: '#8FB0F0' }}>{widget.label || data.labels[widget.kind]}</div>
      {widget.kind === 'text' ? null : !bound ? (
        <div style={{ fontSize: 12, color: '#6F86B8' }}>{t('diagram.unbound')}</div>
      ) : widget.kind === 'lamp' ? (
        <div
          data-testid={`lamp-${widget.id}`}
          data-lit={lit(widget, value)}
          style={{
            width: 22,
            height: 22,
            margin: '4px auto 0',
            borderRadius: '50%',
            background: lit(widget, value) ? '#30A46C' : '#4A4F5C',
            boxShadow: lit(widget, value) ? '0 0 10px #30A46C' : 'none',
          }}
        />
      ) : widget.kind === 'gauge' ? (
        <>
          <Gauge widget={widget} value={value} />
          <div style={{ fontSize: 14, fontWeight: 700 }} data-testid={`value-${widget.id}`}>
            {value?.display ?? t('diagram.noValue')}
          </div>
        </>
      ) : (
        <div style={{ fontSize: 20, fontWeight: 700, color: '#4CC3FF' }} data-testid={`value-${widget.id}`}>
          {value?.display ?? t('diagram.noValue')}
        </div>
      )}
    </div>
  );
}
const nodeTypes = { widget: WidgetView };

/** The inspector's fields for the selected widget: title, device, property, and the kind's own settings. */
function Inspector({ widget, onChange, onRemove }: { widget: Widget; onChange: (w: Widget) => void; onRemove: () => void }) {
  const { t } = useTranslation();
  const user = useSession();
  const devices = useQuery({
    queryKey: [DIAGRAMS, 'devices'],
    enabled: can(user, devicePerm.deviceList),
    queryFn: async () => (await callRoute('device.list', { query: { pageSize: 500 } })).rows,
  });
  const device = devices.data?.find((d) => d.id === widget.deviceId);
  const product = useQuery({
    queryKey: [DIAGRAMS, 'product', device?.productId],
    enabled: !!device && can(user, devicePerm.productList),
    queryFn: () => callRoute('product.detail', { query: { id: device!.productId } }),
  });
  const properties = (product.data?.functions ?? [])
    .filter((f) => f.type === 'property')
    .map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }));
  const numberField = (key: 'min' | 'max' | 'onValue') => (
    <label>
      <Text size="1" color="gray">
        {t(`diagram.${key}`)}
      </Text>
      <TextField.Root
        type="number"
        aria-label={t(`diagram.${key}`)}
        value={widget[key] ?? ''}
        onChange={(e) => onChange({ ...widget, [key]: e.target.value === '' ? null : Number(e.target.value) })}
      />
    </label>
  );
  return (
    <Flex direction="column" gap="2" data-testid="diagram-inspector">
      <Badge>{t(`diagram.widgets.${widget.kind}`)}</Badge>
      <label>
        <Text size="1" color="gray">
          {t('diagram.label')}
        </Text>
        <TextField.Root
          aria-label={t('diagram.label')}
          value={widget.label}
          maxLength={64}
          onChange={(e) => onChange({ ...widget, label: e.target.value })}
        />
      </label>
      {widget.kind !== 'text' && (
        <>
          <label>
            <Text size="1" color="gray">
              {t('diagram.device')}
            </Text>
            {devices.data ? (
              <SelectInput
                name={t('diagram.device')}
                value={widget.deviceId}
                placeholder={t('diagram.noDevice')}
                onChange={(id) => onChange({ ...widget, deviceId: id, property: null })}
                options={devices.data.map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
              />
            ) : (
              <TextField.Root
                aria-label={t('diagram.device')}
                value={widget.deviceId ?? ''}
                onChange={(e) => onChange({ ...widget, deviceId: e.target.value || null })}
              />
            )}
          </label>
          <label>
            <Text size="1" color="gray">
              {t('diagram.property')}
            </Text>
            {properties.length > 0 ? (
              <SelectInput
                name={t('diagram.property')}
                value={widget.property}
                onChange={(p) => onChange({ ...widget, property: p })}
                options={properties}
              />
            ) : (
              <TextField.Root
                aria-label={t('diagram.property')}
                value={widget.property ?? ''}
                onChange={(e) => onChange({ ...widget, property: e.target.value || null })}
              />
            )}
          </label>
        </>
      )}
      {widget.kind === 'gauge' && (
        <Flex gap="2">
          {numberField('min')}
          {numberField('max')}
        </Flex>
      )}
      {widget.kind === 'lamp' && numberField('onValue')}
      <Button color="red" variant="soft" onClick={onRemove}>
        {t('diagram.removeWidget')}
      </Button>
    </Flex>
  );
}

/** A widget's binding is whole (device and property both, or neither) and its range in order, as the server checks. */
const faultOf = (w: Widget): string | null =>
  (w.deviceId === null) !== (w.property === null) ? 'property' : w.min !== null && w.max !== null && w.min >= w.max ? 'max' : null;

/** The canvas of one diagram: in view mode live values, in edit mode a palette, drag and drop, an inspector and save. */
function DiagramCanvas({ diagram, editing, onBack }: { diagram: DiagramRow; editing: boolean; onBack: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => ({
    name: diagram.name,
    remark: diagram.remark,
    background: diagram.background,
    widgets: diagram.widgets,
  }));
  const [selected, setSelected] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const dirty =
    editing &&
    JSON.stringify(draft) !==
      JSON.stringify({ name: diagram.name, remark: diagram.remark, background: diagram.background, widgets: diagram.widgets });
  useRouteLeaveGuard(dirty);
  const values = useQuery({
    queryKey: [DIAGRAMS, 'values', diagram.id],
    queryFn: () => callRoute('diagram.values', { query: { id: diagram.id } }),
    refetchInterval: VALUE_REFRESH_MS,
  });
  const byKey = useMemo(() => new Map((values.data ?? []).map((v) => [valueKey(v.deviceId, v.property), v])), [values.data]);
  const labels = useMemo(
    () => Object.fromEntries(widgetKinds.map((k) => [k, t(`diagram.widgets.${k}`)])) as Record<WidgetKind, string>,
    [t],
  );
  // The canvas measures each widget once: its size is kept here, for the nodes are made afresh from the draft.
  const [sizes, setSizes] = useState<Record<string, { width: number; height: number }>>({});
  const nodes: WidgetNode[] = draft.widgets.map((w) => ({
    id: w.id,
    type: 'widget',
    position: { x: w.x, y: w.y },
    measured: sizes[w.id],
    selected: w.id === selected,
    draggable: editing,
    data: { widget: w, value: byKey.get(valueKey(w.deviceId, w.property)), editing, labels },
  }));
  const onNodesChange = (changes: NodeChange<WidgetNode>[]) => {
    const measured = changes.flatMap((c) => (c.type === 'dimensions' && c.dimensions ? [[c.id, c.dimensions] as const] : []));
    if (measured.length) setSizes((old) => ({ ...old, ...Object.fromEntries(measured) }));
    if (!editing) return;
    const next = applyNodeChanges(changes, nodes);
    setDraft((d) => ({
      ...d,
      widgets: d.widgets.flatMap((w) => {
        const n = next.find((x) => x.id === w.id);
        return n ? [{ ...w, x: Math.round(n.position.x), y: Math.round(n.position.y) }] : [];
      }),
    }));
    const picked = next.find((n) => n.selected);
    if (changes.some((c) => c.type === 'select')) setSelected(picked?.id ?? null);
  };
  const add = (kind: WidgetKind) => {
    const taken = new Set(draft.widgets.map((w) => w.id));
    let i = 1;
    while (taken.has(`${kind}${i}`)) i++;
    const widget: Widget = {
      id: `${kind}${i}`,
      kind,
      x: 40 + (draft.widgets.length % 8) * 30,
      y: 40 + (draft.widgets.length % 8) * 30,
      label: '',
      deviceId: null,
      property: null,
      min: null,
      max: null,
      onValue: null,
    };
    setDraft((d) => ({ ...d, widgets: [...d.widgets, widget] }));
    setSelected(widget.id);
  };
  const current = draft.widgets.find((w) => w.id === selected) ?? null;
  const save = async () => {
    if (!draft.name.trim()) return notice.error(t('diagram.name'));
    const faulty = draft.widgets.find((w) => faultOf(w));
    if (faulty) {
      setSelected(faulty.id);
      return notice.error(`${faulty.label || labels[faulty.kind]}: ${t(faultOf(faulty) === 'max' ? 'diagram.max' : 'diagram.property')}`);
    }
    setSaving(true);
    try {
      await callRoute('diagram.update', { body: { id: diagram.id, ...draft } });
      notice.success(t('diagram.saved'));
      await queryClient.invalidateQueries({ queryKey: [DIAGRAMS] });
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Flex direction="column" gap="2" data-testid="diagram-canvas-page">
      <Flex gap="2" align="center" wrap="wrap">
        <Button variant="soft" color="gray" onClick={onBack}>
          {t('diagram.back')}
        </Button>
        {editing ? (
          <>
            <TextField.Root
              aria-label={t('diagram.name')}
              value={draft.name}
              maxLength={64}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            />
            <label>
              <Text size="1" color="gray" mr="1">
                {t('diagram.background')}
              </Text>
              <input
                type="color"
                aria-label={t('diagram.background')}
                value={draft.background}
                onChange={(e) => setDraft({ ...draft, background: e.target.value.toUpperCase() })}
              />
            </label>
            <Button onClick={() => void save()} disabled={saving || !dirty} data-testid="diagram-save">
              {t('diagram.save')}
            </Button>
            {dirty && (
              <Text size="1" color="amber">
                {t('diagram.dirty')}
              </Text>
            )}
          </>
        ) : (
          <>
            <Heading size="3">{diagram.name}</Heading>
            <Badge color="green">{t('diagram.live')}</Badge>
          </>
        )}
        {values.isError && (
          <Text size="1" color="red" role="alert">
            {messageOf(values.error)}
          </Text>
        )}
      </Flex>
      <Flex gap="2" style={{ height: 'calc(100vh - 260px)', minHeight: 420 }}>
        {editing && (
          <Card style={{ width: 150, flexShrink: 0 }}>
            <Heading size="2" mb="2">
              {t('diagram.palette')}
            </Heading>
            <Flex direction="column" gap="2">
              {widgetKinds.map((k) => (
                <Button key={k} variant="outline" onClick={() => add(k)} data-testid={`palette-${k}`}>
                  {labels[k]}
                </Button>
              ))}
            </Flex>
          </Card>
        )}
        <Box style={{ flex: 1, borderRadius: 6, overflow: 'hidden', background: draft.background }} data-testid="diagram-canvas">
          <ReactFlow<WidgetNode>
            nodes={nodes}
            edges={[]}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onPaneClick={() => setSelected(null)}
            nodesDraggable={editing}
            nodesConnectable={false}
            elementsSelectable={editing}
            deleteKeyCode={null}
            fitView
            fitViewOptions={{ maxZoom: 1 }}
            colorMode="dark"
            style={{ background: 'transparent' }}
          >
            {editing && <Background color="#35508A" bgColor="transparent" gap={20} />}
            <Controls showInteractive={false} />
          </ReactFlow>
        </Box>
        {editing && (
          <Card style={{ width: 260, flexShrink: 0, overflowY: 'auto' }}>
            <Heading size="2" mb="2">
              {t('diagram.inspector')}
            </Heading>
            {current ? (
              <Inspector
                key={current.id}
                widget={current}
                onChange={(w) => setDraft((d) => ({ ...d, widgets: d.widgets.map((x) => (x.id === w.id ? w : x)) }))}
                onRemove={() => {
                  setDraft((d) => ({ ...d, widgets: d.widgets.filter((x) => x.id !== current.id) }));
                  setSelected(null);
                }}
              />
            ) : (
              <Text size="2" color="gray">
                {t('diagram.pickWidget')}
              </Text>
            )}
          </Card>
        )}
      </Flex>
    </Flex>
  );
}

function CreateDialog({
  open,
  onOpenChange,
  onCreated,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (id: string) => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) setName('');
  }, [open]);
  const create = async () => {
    setBusy(true);
    try {
      const { id } = await callRoute('diagram.create', { body: { name, remark: null, background: '#0B1A3A', widgets: [] } });
      onCreated(id);
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Content maxWidth="420px">
        <Dialog.Title>{t('diagram.create')}</Dialog.Title>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            <Text size="2">{t('diagram.name')}</Text>
            <TextField.Root aria-label={t('diagram.name')} value={name} maxLength={64} required onChange={(e) => setName(e.target.value)} />
          </label>
          <Flex justify="end" gap="2" mt="3">
            <Dialog.Close>
              <Button type="button" variant="soft" color="gray">
                {t('common.cancel')}
              </Button>
            </Dialog.Close>
            <Button type="submit" disabled={busy || !name.trim()}>
              {t('common.confirm')}
            </Button>
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/**
 * Operation center → scene: configuration diagrams (组态, issue 20). A list of the tenant's diagrams; each opens in
 * view mode (live values of the bound device properties, every 5 seconds) or, with the edit permission, in the editor.
 */
export function DiagramPage() {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<{ id: string; editing: boolean } | null>(null);
  const [creating, setCreating] = useState(false);
  const [tab, setTab] = useState<'diagrams' | 'topology'>('diagrams');
  const list = useQuery({
    queryKey: [DIAGRAMS, 'list'],
    queryFn: () => callRoute('diagram.list', { query: { pageSize: 100 } }),
  });
  const detail = useQuery({
    queryKey: [DIAGRAMS, 'detail', open?.id],
    enabled: !!open,
    queryFn: () => callRoute('diagram.detail', { query: { id: open!.id } }),
  });
  if (open) {
    if (detail.isError)
      return (
        <Text color="red" role="alert">
          {messageOf(detail.error)}
        </Text>
      );
    if (!detail.data) return <Text color="gray">{t('common.loading')}</Text>;
    return (
      <ReactFlowProvider>
        <DiagramCanvas
          key={`${detail.data.id}-${open.editing}`}
          diagram={detail.data}
          editing={open.editing}
          onBack={() => setOpen(null)}
        />
      </ReactFlowProvider>
    );
  }
  const remove = async (d: DiagramRow) => {
    if (!(await confirm({ title: t('diagram.delete'), message: deleteQuestion(t, t('objects.diagram'), [d.name]), danger: true }))) return;
    try {
      await callRoute('diagram.delete', { query: { id: d.id } });
      await queryClient.invalidateQueries({ queryKey: [DIAGRAMS] });
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  // The topology draws the fleet's gateways: for whom may list devices.
  const tabs = can(user, devicePerm.deviceList) && (
    <SegmentedControl.Root value={tab} onValueChange={(v) => setTab(v === 'topology' ? 'topology' : 'diagrams')}>
      <SegmentedControl.Item value="diagrams">{t('topology.diagrams')}</SegmentedControl.Item>
      <SegmentedControl.Item value="topology">{t('topology.topology')}</SegmentedControl.Item>
    </SegmentedControl.Root>
  );
  if (tab === 'topology')
    return (
      <Flex direction="column" gap="3">
        <Flex>{tabs}</Flex>
        <Topology />
      </Flex>
    );
  return (
    <Flex direction="column" gap="3" data-testid="diagram-page">
      <Flex justify="between" align="center">
        <Flex gap="3" align="center">
          {tabs}
          <Heading size="3">{t('diagram.title')}</Heading>
        </Flex>
        {can(user, operationPerm.sceneAdd) && <Button onClick={() => setCreating(true)}>{t('diagram.create')}</Button>}
      </Flex>
      {list.isError ? (
        <Text color="red" role="alert">
          {messageOf(list.error)}
        </Text>
      ) : !list.data ? (
        <Text color="gray">{t('common.loading')}</Text>
      ) : list.data.rows.length === 0 ? (
        <Card data-testid="diagram-empty">
          <Text as="div" weight="bold">
            {t('diagram.empty')}
          </Text>
          <Text as="div" size="2" color="gray">
            {t('diagram.emptyHint')}
          </Text>
        </Card>
      ) : (
        <Table.Root variant="surface" data-testid="diagram-list">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>{t('diagram.name')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('diagram.widgetsCount')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('diagram.updateTime')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell />
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {list.data.rows.map((d) => (
              <Table.Row key={d.id}>
                <Table.Cell>{d.name}</Table.Cell>
                <Table.Cell>{d.widgets.length}</Table.Cell>
                <Table.Cell>{formatDate(d.updateTime, true)}</Table.Cell>
                <Table.Cell>
                  <Flex gap="2">
                    <Button size="1" variant="soft" onClick={() => setOpen({ id: d.id, editing: false })}>
                      {t('diagram.view')}
                    </Button>
                    {can(user, operationPerm.sceneEdit) && (
                      <Button size="1" variant="soft" onClick={() => setOpen({ id: d.id, editing: true })}>
                        {t('diagram.edit')}
                      </Button>
                    )}
                    {can(user, operationPerm.sceneDelete) && (
                      <Button size="1" variant="soft" color="red" onClick={() => void remove(d)}>
                        {t('diagram.delete')}
                      </Button>
                    )}
                  </Flex>
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
      <CreateDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(id) => {
          setCreating(false);
          void queryClient.invalidateQueries({ queryKey: [DIAGRAMS] });
          setOpen({ id, editing: true });
        }}
      />
    </Flex>
  );
}
