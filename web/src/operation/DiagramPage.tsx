import './i18n.ts';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  ReactFlowProvider,
  applyNodeChanges,
  type Connection,
  type Edge,
  type NodeChange,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Badge, Box, Button, Card, Checkbox, Flex, Heading, SegmentedControl, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { builtinElements, type TopoElementRow } from '@iot/contracts/diagram/topo-element.ts';
import { thingFunction, type ThingFunction } from '@iot/contracts/device/thing-model.ts';
import { widgetKinds, type DiagramRow, type DiagramValue, type WidgetKind } from '@iot/contracts/diagram/model.ts';
import { operationPerm } from '@iot/contracts/operation/permissions.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { callRoute, channelUrl, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { deleteQuestion } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { useRouteLeaveGuard } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { NameDialog } from '../ui/NameDialog.tsx';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { WidgetView, defaultSize, isOn, type Widget, type WidgetNode } from './DiagramWidgets.tsx';
import { ImagePicker, TopoElements, useTopoElements } from './TopoElements.tsx';
import { Topology } from './Topology.tsx';

const DIAGRAMS = 'diagrams';
type Draft = Pick<DiagramRow, 'name' | 'remark' | 'background' | 'widgets' | 'edges' | 'canvas'>;
/** Values come pushed over the websocket; the poll is a slow fallback, fast again when the socket is down. */
const POLL_WITH_SOCKET_MS = 60_000;
const POLL_WITHOUT_SOCKET_MS = 5_000;
const NO_COMMAND = '-';
/** The built-in SCADA elements first in the palette, then the plain widgets. */
const paletteKinds: WidgetKind[] = [...(Object.keys(builtinElements) as Array<keyof typeof builtinElements>)]
  .map((k): WidgetKind => (k === 'label' ? 'text' : k))
  .concat(['value', 'lamp', 'gauge']);
const rangeKinds: WidgetKind[] = ['gauge', 'meter', 'tank'];
const onKinds: WidgetKind[] = ['lamp', 'pump', 'valve', 'pipe', 'switch'];
const colourKinds: WidgetKind[] = ['value', 'lamp', 'gauge', 'meter', 'tank', 'pump', 'valve', 'pipe', 'element'];
const edgeTypes = { curve: 'default', straight: 'straight', step: 'smoothstep' } as const;

const valueKey = (deviceId: string | null, property: string | null) => `${deviceId}/${property}`;
const nodeTypes = { widget: WidgetView };

type DeviceOption = { id: string; name: string; sn: string };

/** The thing model a device reports against (the version it is bound to), as the server checks the bindings. */
async function thingModelOf(deviceId: string): Promise<ThingFunction[]> {
  const { functions } = await callRoute('device.detail', { query: { id: deviceId } });
  return functions.flatMap((f) => {
    const parsed = thingFunction.safeParse(f);
    return parsed.success ? [parsed.data] : [];
  });
}

function useThingModel(deviceId: string | null) {
  return useQuery({ queryKey: [DIAGRAMS, 'model', deviceId], enabled: !!deviceId, queryFn: () => thingModelOf(deviceId!) });
}

/** The inspector's fields for the selected widget: title, size, binding, and the kind's own settings. */
function Inspector({
  widget,
  devices,
  elements,
  onChange,
  onRemove,
}: {
  widget: Widget;
  devices: DeviceOption[] | undefined;
  elements: TopoElementRow[];
  onChange: (w: Widget) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation();
  const model = useThingModel(widget.deviceId);
  const functions = model.data ?? [];
  const properties = functions
    .filter((f) => f.type === 'property')
    .map((f) => ({ value: f.identifier, label: `${f.name} (${f.identifier})` }));
  const commands = functions
    .filter((f) => f.type === 'service' || (f.type === 'property' && f.access === 'rw'))
    .map((f) => ({
      value: `${f.type === 'service' ? 'service' : 'property'}:${f.identifier}`,
      label: `${t(`diagram.commandKinds.${f.type === 'service' ? 'service' : 'property'}`)}: ${f.name} (${f.identifier})`,
    }));
  const element = elements.find((e) => e.id === widget.elementId);
  // An empty size is the kind's (or the element's) default: shown as the placeholder.
  const size = defaultSize(widget.kind, element);
  const placeholders: Partial<Record<string, string>> = { width: size ? String(size[0]) : '', height: size ? String(size[1]) : '' };
  const numberField = (key: 'min' | 'max' | 'onValue' | 'offValue' | 'width' | 'height') => (
    <label style={{ flex: 1 }}>
      <Text size="1" color="gray">
        {t(`diagram.${key}`)}
      </Text>
      <TextField.Root
        type="number"
        aria-label={t(`diagram.${key}`)}
        placeholder={placeholders[key]}
        value={widget[key] ?? ''}
        onChange={(e) => onChange({ ...widget, [key]: e.target.value === '' ? null : Number(e.target.value) })}
      />
    </label>
  );
  return (
    <Flex direction="column" gap="2" data-testid="diagram-inspector">
      <Badge>{widget.kind === 'element' ? (element?.name ?? t('diagram.missingElement')) : t(`diagram.widgets.${widget.kind}`)}</Badge>
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
        <Flex gap="2">
          {numberField('width')}
          {numberField('height')}
        </Flex>
      )}
      {widget.kind === 'image' && (
        <label>
          <Text size="1" color="gray">
            {t('diagram.image')}
          </Text>
          <ImagePicker name={t('diagram.image')} value={widget.fileId} onChange={(id) => onChange({ ...widget, fileId: id })} />
        </label>
      )}
      {widget.kind !== 'text' && widget.kind !== 'image' && (
        <>
          <label>
            <Text size="1" color="gray">
              {t('diagram.device')}
            </Text>
            {devices ? (
              <SelectInput
                name={t('diagram.device')}
                value={widget.deviceId}
                placeholder={t('diagram.noDevice')}
                onChange={(id) => onChange({ ...widget, deviceId: id, property: null, command: null })}
                options={devices.map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
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
      {widget.kind === 'switch' && (
        <label>
          <Text size="1" color="gray">
            {t('diagram.command')}
          </Text>
          <SelectInput
            name={t('diagram.command')}
            value={widget.command ? `${widget.command.kind}:${widget.command.identifier}` : NO_COMMAND}
            onChange={(v) => {
              const [kind, identifier] = v.split(':');
              onChange({
                ...widget,
                command: v === NO_COMMAND || !identifier ? null : { kind: kind === 'service' ? 'service' : 'property', identifier },
              });
            }}
            options={[{ value: NO_COMMAND, label: t('diagram.commandNone') }, ...commands]}
          />
        </label>
      )}
      {rangeKinds.includes(widget.kind) && (
        <Flex gap="2">
          {numberField('min')}
          {numberField('max')}
        </Flex>
      )}
      {onKinds.includes(widget.kind) && (
        <Flex gap="2">
          {numberField('onValue')}
          {widget.kind === 'switch' && numberField('offValue')}
        </Flex>
      )}
      {colourKinds.includes(widget.kind) && (
        <Flex direction="column" gap="1">
          <Text size="1" color="gray">
            {t('diagram.thresholds')}
          </Text>
          {widget.thresholds.map((th, i) => (
            <Flex key={i} gap="1" align="center">
              <Text size="1">{t('diagram.thresholdFrom')}</Text>
              <TextField.Root
                type="number"
                size="1"
                style={{ width: 80 }}
                aria-label={`${t('diagram.thresholdFrom')} ${i + 1}`}
                value={th.value}
                onChange={(e) =>
                  onChange({
                    ...widget,
                    thresholds: widget.thresholds.map((x, j) => (j === i ? { ...x, value: Number(e.target.value) } : x)),
                  })
                }
              />
              <input
                type="color"
                aria-label={`${t('diagram.thresholds')} ${i + 1}`}
                value={th.color}
                onChange={(e) =>
                  onChange({
                    ...widget,
                    thresholds: widget.thresholds.map((x, j) => (j === i ? { ...x, color: e.target.value.toUpperCase() } : x)),
                  })
                }
              />
              <Button
                size="1"
                variant="ghost"
                color="red"
                onClick={() => onChange({ ...widget, thresholds: widget.thresholds.filter((_, j) => j !== i) })}
              >
                {t('diagram.removeThreshold')}
              </Button>
            </Flex>
          ))}
          {widget.thresholds.length < 8 && (
            <Button
              size="1"
              variant="soft"
              onClick={() =>
                onChange({
                  ...widget,
                  thresholds: [...widget.thresholds, { value: (widget.thresholds.at(-1)?.value ?? 0) + 10, color: '#E5484D' }],
                })
              }
            >
              {t('diagram.addThreshold')}
            </Button>
          )}
        </Flex>
      )}
      <Button color="red" variant="soft" onClick={onRemove}>
        {t('diagram.removeWidget')}
      </Button>
    </Flex>
  );
}

/** A widget's binding is whole and its range in order, as the server checks; an element or image has its piece. */
const faultOf = (w: Widget): string | null =>
  (w.deviceId === null) !== (w.property === null && w.command === null)
    ? 'property'
    : w.min !== null && w.max !== null && w.min >= w.max
      ? 'max'
      : w.kind === 'switch' && w.deviceId !== null && w.command === null && w.property === null
        ? 'command'
        : null;

/** The newest value of each bound (device, property), pushed over the websocket, polled slowly as a fallback. */
function useLiveValues(diagram: DiagramRow) {
  const [socketUp, setSocketUp] = useState(false);
  const [pushed, setPushed] = useState<Record<string, { value: number | null; text: string | null; ts: string }>>({});
  const polled = useQuery({
    queryKey: [DIAGRAMS, 'values', diagram.id],
    queryFn: () => callRoute('diagram.values', { query: { id: diagram.id } }),
    refetchInterval: socketUp ? POLL_WITH_SOCKET_MS : POLL_WITHOUT_SOCKET_MS,
  });
  const deviceIds = [...new Set(diagram.widgets.flatMap((w) => (w.deviceId && w.property ? [w.deviceId] : [])))].sort().join(',');
  useEffect(() => {
    if (!deviceIds) return;
    const socket = new WebSocket(channelUrl('telemetry.live', { deviceIds }));
    socket.onopen = () => setSocketUp(true);
    socket.onclose = () => setSocketUp(false);
    socket.onmessage = (m) => {
      const v = JSON.parse(String(m.data)) as { deviceId: string; variable: string; value: number | null; text: string | null; ts: string };
      setPushed((old) => ({ ...old, [valueKey(v.deviceId, v.variable)]: v }));
    };
    return () => socket.close();
  }, [deviceIds]);
  const byKey = useMemo(() => {
    const map = new Map<string, DiagramValue>((polled.data ?? []).map((v) => [valueKey(v.deviceId, v.property), v]));
    for (const [key, v] of Object.entries(pushed)) {
      const old = map.get(key);
      if (old && old.ts >= v.ts) continue;
      const [deviceId = '', property = ''] = key.split('/');
      // The unit is the polled display's tail after its number (the thing model's unit).
      const unit = old?.value != null && old.display.startsWith(String(old.value)) ? old.display.slice(String(old.value).length) : '';
      const display = v.value !== null ? `${v.value}${unit}` : (v.text ?? '--');
      map.set(key, { deviceId, property, value: v.value, text: v.text, display, ts: v.ts });
    }
    return map;
  }, [polled.data, pushed]);
  return { byKey, socketUp, error: polled.isError ? polled.error : null };
}

/** A switch's command after a confirm, through the device command route; the answer shows as a notice. */
function useSwitchCommand(devices: DeviceOption[] | undefined) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState<string | null>(null);
  const send = async (widget: Widget, on: boolean) => {
    const command = widget.command;
    if (!command || !widget.deviceId) return;
    const value = on ? (widget.onValue ?? 1) : (widget.offValue ?? 0);
    const device = devices?.find((d) => d.id === widget.deviceId);
    const ok = await confirm({
      title: t('diagram.confirmTitle'),
      message: t('diagram.confirmSwitch', {
        device: device ? `${device.name} (${device.sn})` : widget.deviceId,
        command: command.identifier,
        value,
        state: on ? t('diagram.switchOn') : t('diagram.switchOff'),
      }),
    });
    if (!ok) return;
    setBusy(widget.id);
    try {
      let params: Record<string, unknown> = { value };
      if (command.kind === 'service') {
        // A service carries the value in its one input, if it has any.
        const service = (await thingModelOf(widget.deviceId)).find((f) => f.type === 'service' && f.identifier === command.identifier);
        const input = service?.type === 'service' ? service.inputs[0] : undefined;
        params = input ? { [input.identifier]: value } : {};
      }
      const result = await callRoute('device.command', {
        body: { id: widget.deviceId, kind: command.kind, identifier: command.identifier, params },
      });
      if (result.status === 'replied') notice.success(t('diagram.commandReplied'));
      else if (result.status === 'sent') notice.success(t('diagram.commandSent'));
      else notice.error(t('diagram.commandFailed', { reason: result.status }));
    } catch (e) {
      notice.error(t('diagram.commandFailed', { reason: messageOf(e) }));
    } finally {
      setBusy(null);
    }
  };
  return { send, busy };
}

/** The canvas of one diagram: in view mode live values and switches, in edit mode a palette, edges, an inspector and save. */
function DiagramCanvas({ diagram, editing, onBack }: { diagram: DiagramRow; editing: boolean; onBack: () => void }) {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const saved: Draft = {
    name: diagram.name,
    remark: diagram.remark,
    background: diagram.background,
    widgets: diagram.widgets,
    edges: diagram.edges,
    canvas: diagram.canvas,
  };
  const [draft, setDraft] = useState<Draft>(saved);
  const [selected, setSelected] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const dirty = editing && JSON.stringify(draft) !== JSON.stringify(saved);
  useRouteLeaveGuard(dirty);
  const live = useLiveValues(diagram);
  const elements = useTopoElements();
  const elementById = useMemo(() => new Map((elements.data ?? []).map((e) => [e.id, e])), [elements.data]);
  const devices = useQuery({
    queryKey: [DIAGRAMS, 'devices'],
    enabled: can(user, devicePerm.deviceList),
    queryFn: async () => (await callRoute('device.list', { query: { pageSize: 500 } })).rows,
  });
  const switches = useSwitchCommand(devices.data);
  const mayCommand = can(user, devicePerm.deviceCommand);
  const labels = useMemo(
    () => Object.fromEntries(widgetKinds.map((k) => [k, t(`diagram.widgets.${k}`)])) as Record<WidgetKind, string>,
    [t],
  );
  // The canvas measures each widget once: its size is kept here, for the nodes are made afresh from the draft.
  const [sizes, setSizes] = useState<Record<string, { width: number; height: number }>>({});
  const movable = editing && !draft.canvas.locked;
  const nodes: WidgetNode[] = draft.widgets.map((w) => ({
    id: w.id,
    type: 'widget',
    position: { x: w.x, y: w.y },
    measured: sizes[w.id],
    selected: w.id === selected,
    draggable: movable,
    // A switch takes clicks in view mode, where the canvas otherwise lets every pointer through to the pane.
    style: w.kind === 'switch' ? { pointerEvents: 'all' } : undefined,
    data: {
      widget: w,
      value: live.byKey.get(valueKey(w.deviceId, w.property)),
      editing,
      labels,
      element: w.elementId ? elementById.get(w.elementId) : undefined,
      onSwitch: mayCommand ? (widget, on) => void switches.send(widget, on) : null,
      busy: switches.busy === w.id,
    },
  }));
  const edges: Edge[] = draft.edges.map((e) => ({
    ...e,
    type: edgeTypes[draft.canvas.lineStyle],
    // A line out of a running pump, an open valve or a flowing pipe flows too.
    animated: draft.widgets.some((w) => w.id === e.source && isOn(w, live.byKey.get(valueKey(w.deviceId, w.property)))),
    markerEnd: draft.canvas.arrow === 'triangle' ? { type: MarkerType.ArrowClosed, color: '#8FB0F0', width: 18, height: 18 } : undefined,
    style: { stroke: '#8FB0F0', strokeWidth: 2 },
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
  const onConnect = (c: Connection) => {
    if (!c.source || !c.target || c.source === c.target) return;
    const id = `e-${c.source}-${c.target}`;
    setDraft((d) => (d.edges.some((e) => e.id === id) ? d : { ...d, edges: [...d.edges, { id, source: c.source, target: c.target }] }));
  };
  const add = (kind: WidgetKind, element?: TopoElementRow) => {
    const taken = new Set(draft.widgets.map((w) => w.id));
    let i = 1;
    while (taken.has(`${kind}${i}`)) i++;
    const widget: Widget = {
      id: `${kind}${i}`,
      kind,
      // Side by side, six to a row, so that a new widget does not hide the last one.
      x: 40 + (draft.widgets.length % 6) * 140,
      y: 40 + Math.floor(draft.widgets.length / 6) * 160,
      label: '',
      deviceId: null,
      property: null,
      min: null,
      max: null,
      onValue: null,
      offValue: null,
      width: null,
      height: null,
      elementId: element?.id ?? null,
      fileId: null,
      thresholds: [],
      command: null,
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
      const field = faultOf(faulty);
      return notice.error(
        `${faulty.label || labels[faulty.kind]}: ${t(field === 'max' ? 'diagram.max' : field === 'command' ? 'diagram.command' : 'diagram.property')}`,
      );
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
  const setCanvas = (more: Partial<Draft['canvas']>) => setDraft((d) => ({ ...d, canvas: { ...d.canvas, ...more } }));

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
            <Flex gap="1" align="center">
              <Text size="1" color="gray">
                {t('diagram.lineStyle')}
              </Text>
              <Box width="90px">
                <SelectInput
                  name={t('diagram.lineStyle')}
                  value={draft.canvas.lineStyle}
                  onChange={(v) => setCanvas({ lineStyle: v === 'straight' ? 'straight' : v === 'step' ? 'step' : 'curve' })}
                  options={(['curve', 'straight', 'step'] as const).map((v) => ({ value: v, label: t(`diagram.lineStyles.${v}`) }))}
                />
              </Box>
              <Text size="1" color="gray">
                {t('diagram.arrow')}
              </Text>
              <Box width="110px">
                <SelectInput
                  name={t('diagram.arrow')}
                  value={draft.canvas.arrow}
                  onChange={(v) => setCanvas({ arrow: v === 'none' ? 'none' : 'triangle' })}
                  options={(['triangle', 'none'] as const).map((v) => ({ value: v, label: t(`diagram.arrows.${v}`) }))}
                />
              </Box>
              <Text size="1" color="gray">
                {t('diagram.scale')}
              </Text>
              <TextField.Root
                type="number"
                step="0.1"
                min={0.2}
                max={4}
                style={{ width: 64 }}
                aria-label={t('diagram.scale')}
                value={draft.canvas.scale}
                onChange={(e) => setCanvas({ scale: Math.min(4, Math.max(0.2, Number(e.target.value) || 1)) })}
              />
              <Text as="label" size="1">
                <Flex gap="1" align="center">
                  <Checkbox checked={draft.canvas.locked} onCheckedChange={(v) => setCanvas({ locked: v === true })} />
                  {t('diagram.locked')}
                </Flex>
              </Text>
            </Flex>
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
            <Badge color="green" data-testid="diagram-live" data-socket={live.socketUp}>
              {t('diagram.live')} · {live.socketUp ? t('diagram.liveSocket') : t('diagram.livePoll')}
            </Badge>
          </>
        )}
        {live.error && (
          <Text size="1" color="red" role="alert">
            {messageOf(live.error)}
          </Text>
        )}
      </Flex>
      {editing && (
        <Text size="1" color="gray">
          {t('diagram.connectHint')}
        </Text>
      )}
      <Flex gap="2" style={{ height: 'calc(100vh - 280px)', minHeight: 420 }}>
        {editing && (
          <Card style={{ width: 160, flexShrink: 0, overflowY: 'auto' }}>
            <Heading size="2" mb="2">
              {t('diagram.builtin')}
            </Heading>
            <Flex direction="column" gap="2">
              {paletteKinds.map((k) => (
                <Button key={k} variant="outline" onClick={() => add(k)} data-testid={`palette-${k}`}>
                  {labels[k]}
                </Button>
              ))}
            </Flex>
            <Heading size="2" my="2">
              {t('diagram.own')}
            </Heading>
            <Flex direction="column" gap="2" data-testid="palette-own">
              {(elements.data ?? []).length === 0 && (
                <Text size="1" color="gray">
                  {t('diagram.noOwn')}
                </Text>
              )}
              {(elements.data ?? []).map((e) => (
                <Button key={e.id} variant="outline" color="cyan" onClick={() => add('element', e)} data-testid={`palette-element-${e.id}`}>
                  {e.name}
                </Button>
              ))}
            </Flex>
          </Card>
        )}
        <Box style={{ flex: 1, borderRadius: 6, overflow: 'hidden', background: draft.background }} data-testid="diagram-canvas">
          <ReactFlow<WidgetNode>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onConnect={editing ? onConnect : undefined}
            onEdgeDoubleClick={(_, edge) => editing && setDraft((d) => ({ ...d, edges: d.edges.filter((e) => e.id !== edge.id) }))}
            onPaneClick={() => setSelected(null)}
            nodesDraggable={movable}
            nodesConnectable={editing}
            elementsSelectable={editing}
            deleteKeyCode={null}
            fitView
            fitViewOptions={{ maxZoom: diagram.canvas.scale, minZoom: Math.min(0.2, diagram.canvas.scale) }}
            colorMode="dark"
            style={{ background: 'transparent' }}
          >
            {editing && <Background color="#35508A" bgColor="transparent" gap={20} />}
            <Controls showInteractive={false} />
          </ReactFlow>
        </Box>
        {editing && (
          <Card style={{ width: 280, flexShrink: 0, overflowY: 'auto' }}>
            <Heading size="2" mb="2">
              {t('diagram.inspector')}
            </Heading>
            {current ? (
              <Inspector
                key={current.id}
                widget={current}
                devices={devices.data}
                elements={elements.data ?? []}
                onChange={(w) => setDraft((d) => ({ ...d, widgets: d.widgets.map((x) => (x.id === w.id ? w : x)) }))}
                onRemove={() => {
                  setDraft((d) => ({
                    ...d,
                    widgets: d.widgets.filter((x) => x.id !== current.id),
                    edges: d.edges.filter((e) => e.source !== current.id && e.target !== current.id),
                  }));
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

/**
 * Operation center → scene: configuration diagrams (组态, issue 20). A list of the tenant's diagrams; each opens in
 * view mode (live values of the bound device properties over the websocket, switches that send commands) or, with the
 * edit permission, in the editor; beside them the tenant's topo elements and the network topology.
 */
export function DiagramPage() {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<{ id: string; editing: boolean } | null>(null);
  const [creating, setCreating] = useState(false);
  const [tab, setTab] = useState<'diagrams' | 'topology' | 'elements'>('diagrams');
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
  const columns: ListColumn<DiagramRow>[] = [
    { id: 'name', header: t('diagram.name'), value: (d) => d.name, sortable: true },
    { id: 'widgets', header: t('diagram.widgetsCount'), value: (d) => d.widgets.length, width: 120 },
    { id: 'updateTime', header: t('diagram.updateTime'), value: (d) => formatDate(d.updateTime, true), sortable: true, width: 180 },
  ];
  // The topology draws the fleet's gateways: for whom may list devices.
  const tabs = (
    <SegmentedControl.Root
      value={tab}
      onValueChange={(v) => setTab(v === 'topology' ? 'topology' : v === 'elements' ? 'elements' : 'diagrams')}
    >
      <SegmentedControl.Item value="diagrams">{t('topology.diagrams')}</SegmentedControl.Item>
      <SegmentedControl.Item value="elements">{t('topology.elements')}</SegmentedControl.Item>
      {can(user, devicePerm.deviceList) && <SegmentedControl.Item value="topology">{t('topology.topology')}</SegmentedControl.Item>}
    </SegmentedControl.Root>
  );
  if (tab !== 'diagrams')
    return (
      <Flex direction="column" gap="3">
        <Flex>{tabs}</Flex>
        {tab === 'topology' ? <Topology /> : <TopoElements />}
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
      <div data-testid="diagram-list">
        <ListPage<DiagramRow>
          queryKey={DIAGRAMS}
          route="diagram.list"
          exportName={t('diagram.title')}
          columns={columns}
          selectable={false}
          defaultSort={{ sort: 'createTime', order: 'desc' }}
          filters={[{ name: 'name', label: t('diagram.name') }]}
          empty={
            <div data-testid="diagram-empty">
              <Text as="div" weight="bold">
                {t('diagram.empty')}
              </Text>
              <Text as="div" size="2" color="gray">
                {t('diagram.emptyHint')}
              </Text>
            </div>
          }
          rowActions={(d) => (
            <>
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
            </>
          )}
        />
      </div>
      {creating && (
        <NameDialog
          title={t('diagram.create')}
          label={t('diagram.name')}
          initial=""
          onClose={() => setCreating(false)}
          onDone={async (name) => {
            const { id } = await callRoute('diagram.create', {
              body: { name, remark: null, background: '#0B1A3A', widgets: [], edges: [] },
            });
            setCreating(false);
            void queryClient.invalidateQueries({ queryKey: [DIAGRAMS] });
            setOpen({ id, editing: true });
          }}
        />
      )}
    </Flex>
  );
}
