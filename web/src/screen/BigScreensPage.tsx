import './i18n.ts';
import './screen.css';
import '../alarm/i18n.ts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Callout, Card, Dialog, Flex, Heading, SegmentedControl, Table, Text, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  SCREEN_COLUMNS,
  SCREEN_ROWS,
  SCREEN_SHARE_MAX_HOURS,
  SCREEN_WIDGET_LIMIT,
  screenWidgetKinds,
  unboundWidgetKinds,
  type ScreenRow,
  type ScreenWidget,
  type ScreenWidgetKind,
} from '@iot/contracts/screen/model.ts';
import { screenPerm } from '@iot/contracts/screen/permissions.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { statPerm } from '@iot/contracts/stat/permissions.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { BigScreenPage } from '../operation/BigScreenPage.tsx';
import { deleteQuestion } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { useRouteLeaveGuard } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { CELL_H, CELL_W, Stage, WidgetFrame, useHistory } from './Widgets.tsx';

const SCREENS = 'screens';
const DATA_REFRESH_MS = 5_000;
/** A new widget's size in cells, by kind. */
const SIZES: Partial<Record<ScreenWidgetKind, [number, number]>> = {
  number: [4, 3],
  clock: [6, 2],
  text: [6, 2],
  deviceStatus: [4, 3],
  switch: [4, 3],
  progress: [6, 3],
  alarmList: [8, 8],
  table: [8, 8],
};

/** The size of an element, followed as it changes. */
function useSize<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(
      ([entry]) => entry && setSize({ width: entry.contentRect.width, height: entry.contentRect.height }),
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size] as const;
}

/** A free spot for a widget of this size: the first cell, row by row, where it overlaps none. */
function freeSpot(widgets: ScreenWidget[], w: number, h: number): { x: number; y: number } {
  for (let y = 0; y + h <= SCREEN_ROWS; y++)
    for (let x = 0; x + w <= SCREEN_COLUMNS; x++)
      if (!widgets.some((o) => x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h)) return { x, y };
  return { x: 0, y: 0 };
}

/** The view of a screen: live values every 5 seconds, the 1920×1080 stage scaled to the window, full screen on demand. */
export function ScreenView({ screen, onClose }: { screen: ScreenRow; onClose: () => void }) {
  const { t } = useTranslation();
  const root = useRef<HTMLDivElement>(null);
  const [box, size] = useSize<HTMLDivElement>();
  const widgets = screen.widgets as ScreenWidget[];
  const data = useQuery({
    queryKey: [SCREENS, 'data', screen.id],
    queryFn: () => callRoute('screen.data', { query: { id: screen.id } }),
    refetchInterval: DATA_REFRESH_MS,
  });
  const history = useHistory(widgets, data.data?.widgets);
  const user = useSession();
  const queryClient = useQueryClient();
  // A switch sets its device variable, after a confirm: for whom may command devices.
  const onSwitch = can(user, devicePerm.deviceCommand)
    ? async (w: ScreenWidget, value: 0 | 1) => {
        if (w.binding.source !== 'device') return;
        const name = w.title || t(`screen.kinds.${w.kind}`);
        if (!(await confirm({ title: name, message: t('screen.switchQuestion', { name, state: t(value ? 'screen.on' : 'screen.off') }) })))
          return;
        try {
          await callRoute('device.command', {
            body: { id: w.binding.deviceId, kind: 'property', identifier: w.binding.variable, params: { value } },
          });
          notice.success(t('screen.switchSent'));
          await queryClient.invalidateQueries({ queryKey: [SCREENS, 'data', screen.id] });
        } catch (e) {
          notice.error(messageOf(e));
        }
      }
    : undefined;
  const toggle = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void root.current?.requestFullscreen?.().catch(() => undefined);
  };
  return (
    <div ref={root} className="sw-view" data-testid="screen-view">
      <div className="sw-view-bar">
        <Button size="1" variant="solid" onClick={onClose}>
          {t('screen.back')}
        </Button>
        <strong>{screen.name}</strong>
        <Badge color="green">{t('screen.live')}</Badge>
        {data.data && (
          <span className="sw-muted">
            {t('screen.updated')} {formatDate(data.data.at, true)}
          </span>
        )}
        {data.isError && (
          <Text size="1" color="red" role="alert">
            {messageOf(data.error)}
          </Text>
        )}
        <span style={{ flex: 1 }} />
        <Button size="1" variant="outline" onClick={toggle}>
          {t('screen.fullScreen')}
        </Button>
      </div>
      <div ref={box} className="sw-view-box">
        <Stage width={size.width} height={size.height}>
          {widgets.map((w) => (
            <WidgetFrame
              key={w.id}
              widget={w}
              data={data.data?.widgets[w.id]}
              history={history[w.id] ?? []}
              onSwitch={onSwitch && ((sw, value) => void onSwitch(sw, value))}
            />
          ))}
        </Stage>
      </div>
    </div>
  );
}

/** The inspector of the selected widget: title, binding and the options its kind uses. */
function Inspector({ widget, onChange, onRemove }: { widget: ScreenWidget; onChange: (w: ScreenWidget) => void; onRemove: () => void }) {
  const { t } = useTranslation();
  const user = useSession();
  const b = widget.binding;
  const devices = useQuery({
    queryKey: [SCREENS, 'devices'],
    enabled: b.source === 'device' && can(user, devicePerm.deviceList),
    queryFn: async () => (await callRoute('device.list', { query: { pageSize: 500 } })).rows,
  });
  const device = b.source === 'device' ? devices.data?.find((d) => d.id === b.deviceId) : undefined;
  const product = useQuery({
    queryKey: [SCREENS, 'product', device?.productId],
    enabled: !!device && can(user, devicePerm.productList),
    queryFn: () => callRoute('product.detail', { query: { id: device!.productId } }),
  });
  const tasks = useQuery({
    queryKey: [SCREENS, 'tasks'],
    enabled: b.source === 'stat' && can(user, statPerm.list),
    queryFn: async () => (await callRoute('statTask.list', { query: { pageSize: 500 } })).rows,
  });
  const variables = (product.data?.functions ?? [])
    .filter((f) => f.type === 'property')
    .map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }));
  const bindable = !unboundWidgetKinds.includes(widget.kind);
  const setOption = (key: keyof ScreenWidget['options'], value: string | number | undefined) => {
    const options = { ...widget.options, [key]: value };
    if (value === undefined || value === '') delete options[key];
    onChange({ ...widget, options });
  };
  const field = (label: string, input: React.ReactNode) => (
    <label className="sw-field">
      <Text size="1" color="gray">
        {label}
      </Text>
      {input}
    </label>
  );
  const numberOption = (key: 'min' | 'max' | 'decimals') =>
    field(
      t(`screen.options.${key}`),
      <TextField.Root
        type="number"
        aria-label={t(`screen.options.${key}`)}
        value={widget.options[key] ?? ''}
        onChange={(e) => setOption(key, e.target.value === '' ? undefined : Number(e.target.value))}
      />,
    );
  const textOption = (key: 'unit' | 'text' | 'url') =>
    field(
      t(`screen.options.${key}`),
      <TextField.Root
        aria-label={t(`screen.options.${key}`)}
        value={widget.options[key] ?? ''}
        onChange={(e) => setOption(key, e.target.value)}
      />,
    );
  const sources = bindable ? (['none', 'device', 'stat', 'alarm'] as const) : (['none'] as const);
  return (
    <Flex direction="column" gap="2" data-testid="screen-inspector">
      <Badge>{t(`screen.kinds.${widget.kind}`)}</Badge>
      <Text size="1" color="gray">
        {t('screen.size', { x: widget.x, y: widget.y, w: widget.w, h: widget.h })}
      </Text>
      {field(
        t('screen.widgetTitle'),
        <TextField.Root
          aria-label={t('screen.widgetTitle')}
          value={widget.title}
          maxLength={64}
          onChange={(e) => onChange({ ...widget, title: e.target.value })}
        />,
      )}
      {bindable && (
        <>
          <Heading size="1">{t('screen.binding.title')}</Heading>
          {field(
            t('screen.binding.source'),
            <SelectInput
              name={t('screen.binding.source')}
              value={b.source}
              onChange={(source) =>
                onChange({
                  ...widget,
                  binding:
                    source === 'device'
                      ? { source, deviceId: '', variable: '' }
                      : source === 'stat'
                        ? { source, statTaskId: '' }
                        : source === 'alarm'
                          ? { source, level: null, status: null }
                          : { source: 'none' },
                })
              }
              options={sources.map((s) => ({ value: s, label: t(`screen.binding.${s}`) }))}
            />,
          )}
          {b.source === 'device' && (
            <>
              {field(
                t('screen.binding.deviceId'),
                <SelectInput
                  name={t('screen.binding.deviceId')}
                  value={b.deviceId || null}
                  placeholder={t('screen.binding.pick')}
                  onChange={(deviceId) => onChange({ ...widget, binding: { ...b, deviceId, variable: '' } })}
                  options={(devices.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
                />,
              )}
              {field(
                t('screen.binding.variable'),
                variables.length > 0 ? (
                  <SelectInput
                    name={t('screen.binding.variable')}
                    value={b.variable || null}
                    placeholder={t('screen.binding.pick')}
                    onChange={(variable) => onChange({ ...widget, binding: { ...b, variable } })}
                    options={variables}
                  />
                ) : (
                  <TextField.Root
                    aria-label={t('screen.binding.variable')}
                    value={b.variable}
                    onChange={(e) => onChange({ ...widget, binding: { ...b, variable: e.target.value } })}
                  />
                ),
              )}
            </>
          )}
          {b.source === 'stat' &&
            field(
              t('screen.binding.statTaskId'),
              <SelectInput
                name={t('screen.binding.statTaskId')}
                value={b.statTaskId || null}
                placeholder={t('screen.binding.pick')}
                onChange={(statTaskId) => onChange({ ...widget, binding: { ...b, statTaskId } })}
                options={(tasks.data ?? []).map((task) => ({ value: task.id, label: task.name }))}
              />,
            )}
          {b.source === 'alarm' && (
            <>
              {field(
                t('screen.binding.level'),
                <SelectInput
                  name={t('screen.binding.level')}
                  value={String(b.level ?? 0)}
                  onChange={(v) => onChange({ ...widget, binding: { ...b, level: Number(v) || null } })}
                  options={[0, 1, 2, 3, 4, 5].map((l) => ({
                    value: String(l),
                    label: l ? t(`alarm.levels.${l}`) : t('screen.binding.anyLevel'),
                  }))}
                />,
              )}
              {field(
                t('screen.binding.status'),
                <SelectInput
                  name={t('screen.binding.status')}
                  value={b.status ?? 'active'}
                  onChange={(v) => onChange({ ...widget, binding: { ...b, status: v === 'cleared' ? 'cleared' : 'active' } })}
                  options={(['active', 'cleared'] as const).map((s) => ({ value: s, label: t(`screen.binding.${s}`) }))}
                />,
              )}
            </>
          )}
        </>
      )}
      {['gauge', 'progress', 'liquid', 'pie'].includes(widget.kind) && (
        <Flex gap="2">
          {numberOption('min')}
          {numberOption('max')}
        </Flex>
      )}
      {['number', 'gauge', 'progress', 'liquid'].includes(widget.kind) && (
        <Flex gap="2">
          {textOption('unit')}
          {numberOption('decimals')}
        </Flex>
      )}
      {widget.kind === 'text' && textOption('text')}
      {(widget.kind === 'image' || widget.kind === 'video') && textOption('url')}
      {field(
        t('screen.options.color'),
        <input
          type="color"
          aria-label={t('screen.options.color')}
          value={widget.options.color ?? '#4CC3FF'}
          onChange={(e) => setOption('color', e.target.value.toUpperCase())}
        />,
      )}
      <Button color="red" variant="soft" onClick={onRemove}>
        {t('screen.removeWidget')}
      </Button>
    </Flex>
  );
}

/** Whether a widget can be saved as it is: a device binding names its device and variable, a statistic its task. */
const incomplete = (w: ScreenWidget) =>
  (w.binding.source === 'device' && (!w.binding.deviceId || !w.binding.variable)) || (w.binding.source === 'stat' && !w.binding.statTaskId);

/** The designer of one screen: palette, the grid (drag to move, the corner to resize), the inspector and save. */
function Designer({ screen, onBack }: { screen: ScreenRow; onBack: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const saved = screen.widgets as ScreenWidget[];
  const [widgets, setWidgets] = useState<ScreenWidget[]>(saved);
  const [selected, setSelected] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [box, size] = useSize<HTMLDivElement>();
  const scale = useRef(1);
  const onScale = useCallback((s: number) => {
    scale.current = s;
  }, []);
  const dirty = JSON.stringify(widgets) !== JSON.stringify(saved);
  useRouteLeaveGuard(dirty);
  const data = useQuery({
    queryKey: [SCREENS, 'data', screen.id],
    queryFn: () => callRoute('screen.data', { query: { id: screen.id } }),
    refetchInterval: DATA_REFRESH_MS,
  });
  const history = useHistory(saved, data.data?.widgets);
  const change = (w: ScreenWidget) => setWidgets((ws) => ws.map((x) => (x.id === w.id ? w : x)));
  const add = (kind: ScreenWidgetKind) => {
    if (widgets.length >= SCREEN_WIDGET_LIMIT) return notice.error(t('screen.tooMany', { limit: SCREEN_WIDGET_LIMIT }));
    const taken = new Set(widgets.map((w) => w.id));
    let i = 1;
    while (taken.has(`${kind}${i}`)) i++;
    const [w, h] = SIZES[kind] ?? [6, 6];
    const widget: ScreenWidget = {
      id: `${kind}${i}`,
      kind,
      ...freeSpot(widgets, w, h),
      w,
      h,
      title: '',
      binding: { source: 'none' },
      options: {},
    };
    setWidgets((ws) => [...ws, widget]);
    setSelected(widget.id);
  };
  /** Moves (or, from the corner, resizes) a widget by whole cells while the pointer is held. */
  const drag = (e: React.PointerEvent, widget: ScreenWidget, mode: 'move' | 'resize') => {
    e.preventDefault();
    e.stopPropagation();
    setSelected(widget.id);
    const [startX, startY] = [e.clientX, e.clientY];
    const target = e.currentTarget as HTMLElement;
    target.setPointerCapture(e.pointerId);
    const move = (ev: PointerEvent) => {
      const dx = Math.round((ev.clientX - startX) / (CELL_W * scale.current));
      const dy = Math.round((ev.clientY - startY) / (CELL_H * scale.current));
      const next =
        mode === 'move'
          ? {
              ...widget,
              x: Math.min(SCREEN_COLUMNS - widget.w, Math.max(0, widget.x + dx)),
              y: Math.min(SCREEN_ROWS - widget.h, Math.max(0, widget.y + dy)),
            }
          : {
              ...widget,
              w: Math.min(SCREEN_COLUMNS - widget.x, Math.max(1, widget.w + dx)),
              h: Math.min(SCREEN_ROWS - widget.y, Math.max(1, widget.h + dy)),
            };
      change(next);
    };
    const up = () => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      target.removeEventListener('pointercancel', up);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
  };
  const save = async () => {
    const faulty = widgets.find(incomplete);
    if (faulty) {
      setSelected(faulty.id);
      return notice.error(`${faulty.title || t(`screen.kinds.${faulty.kind}`)}: ${t('screen.binding.pick')}`);
    }
    setSaving(true);
    try {
      await callRoute('screen.save', { body: { id: screen.id, widgets } });
      notice.success(t('screen.saved'));
      await queryClient.invalidateQueries({ queryKey: [SCREENS] });
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setSaving(false);
    }
  };
  const current = widgets.find((w) => w.id === selected) ?? null;
  return (
    <Flex direction="column" gap="2" data-testid="screen-designer">
      <Flex gap="2" align="center" wrap="wrap">
        <Button variant="soft" color="gray" onClick={onBack}>
          {t('screen.back')}
        </Button>
        <Heading size="3">{screen.name}</Heading>
        <Button onClick={() => void save()} disabled={saving || !dirty} data-testid="screen-save">
          {t('screen.save')}
        </Button>
        {dirty && (
          <Text size="1" color="amber">
            {t('screen.dirty')}
          </Text>
        )}
        <Text size="1" color="gray">
          {widgets.length}/{SCREEN_WIDGET_LIMIT}
        </Text>
      </Flex>
      <Flex gap="2" style={{ height: 'calc(100vh - 250px)', minHeight: 460 }}>
        <Card style={{ width: 140, flexShrink: 0, overflowY: 'auto' }}>
          <Heading size="2" mb="2">
            {t('screen.palette')}
          </Heading>
          <Flex direction="column" gap="1">
            {screenWidgetKinds.map((k) => (
              <Button key={k} size="1" variant="outline" onClick={() => add(k)} data-testid={`palette-${k}`}>
                {t(`screen.kinds.${k}`)}
              </Button>
            ))}
          </Flex>
        </Card>
        <div ref={box} className="sw-design-box" onPointerDown={() => setSelected(null)}>
          <Stage width={size.width} height={size.height} onScale={onScale}>
            <div className="sw-grid" />
            {widgets.map((w) => (
              <WidgetFrame
                key={w.id}
                widget={w}
                data={data.data?.widgets[w.id]}
                history={history[w.id] ?? []}
                className={`sw-editing${w.id === selected ? ' sw-selected' : ''}`}
                onPointerDown={(e) => drag(e, w, 'move')}
              >
                <span className="sw-resize" data-testid={`resize-${w.id}`} onPointerDown={(e) => drag(e, w, 'resize')} />
              </WidgetFrame>
            ))}
          </Stage>
        </div>
        <Card style={{ width: 260, flexShrink: 0, overflowY: 'auto' }}>
          <Heading size="2" mb="2">
            {t('screen.inspector')}
          </Heading>
          {current ? (
            <Inspector
              key={current.id}
              widget={current}
              onChange={change}
              onRemove={() => {
                setWidgets((ws) => ws.filter((x) => x.id !== current.id));
                setSelected(null);
              }}
            />
          ) : (
            <Text size="2" color="gray">
              {t('screen.pickWidget')}
            </Text>
          )}
        </Card>
      </Flex>
    </Flex>
  );
}

/** A screen's share links: create one with an expiry (its link is shown once, to copy or open), revoke. */
function SharesDialog({ screen, onClose }: { screen: ScreenRow; onClose: () => void }) {
  const { t } = useTranslation();
  const [hours, setHours] = useState('24');
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<string | null>(null);
  const shares = useQuery({
    queryKey: [SCREENS, 'shares', screen.id],
    queryFn: () => callRoute('screen.shares', { query: { id: screen.id } }),
  });
  const linkOf = (token: string) => `${window.location.origin}/share/screen?token=${encodeURIComponent(token)}`;
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      await shares.refetch();
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="760px" data-testid="screen-shares">
        <Dialog.Title>
          {t('screen.shares.title')} · {screen.name}
        </Dialog.Title>
        <Flex gap="2" align="end" mb="3">
          <label>
            <Text size="1" color="gray">
              {t('screen.shares.hours')}
            </Text>
            <TextField.Root
              type="number"
              min={1}
              max={SCREEN_SHARE_MAX_HOURS}
              aria-label={t('screen.shares.hours')}
              value={hours}
              onChange={(e) => setHours(e.target.value)}
            />
          </label>
          <Button
            disabled={busy || !(Number(hours) >= 1)}
            onClick={() =>
              void run(async () =>
                setMade((await callRoute('screen.share', { body: { id: screen.id, hours: Math.round(Number(hours)) } })).token),
              )
            }
            data-testid="share-create"
          >
            {t('screen.shares.create')}
          </Button>
        </Flex>
        {made && (
          <Callout.Root color="green" mb="3" data-testid="share-new">
            <Callout.Text>{t('screen.shares.shownOnce')}</Callout.Text>
            <code className="sw-link" data-testid="share-link">
              {linkOf(made)}
            </code>
            <Flex gap="1">
              <Button
                size="1"
                variant="soft"
                onClick={() => void navigator.clipboard?.writeText(linkOf(made)).then(() => notice.success(t('screen.shares.copied')))}
              >
                {t('screen.shares.copy')}
              </Button>
              <Button size="1" variant="soft" asChild>
                <a href={linkOf(made)} target="_blank" rel="noreferrer">
                  {t('screen.shares.open')}
                </a>
              </Button>
            </Flex>
          </Callout.Root>
        )}
        {shares.data?.length === 0 && <Text color="gray">{t('screen.shares.none')}</Text>}
        {!!shares.data?.length && (
          <Table.Root size="1">
            <Table.Body>
              {shares.data.map((s) => (
                <Table.Row key={s.id} data-testid="share-row">
                  <Table.Cell>
                    <Badge color={s.revoked ? 'gray' : s.expired ? 'amber' : 'green'}>
                      {t(s.revoked ? 'screen.shares.revoked' : s.expired ? 'screen.shares.expired' : 'screen.shares.live')}
                    </Badge>
                  </Table.Cell>
                  <Table.Cell>
                    {t('screen.shares.expiresAt')} {formatDate(s.expiresAt, true)}
                  </Table.Cell>
                  <Table.Cell>
                    <Flex gap="1">
                      {!s.revoked && (
                        <Button
                          size="1"
                          variant="soft"
                          color="red"
                          disabled={busy}
                          onClick={() => void run(() => callRoute('screen.unshare', { query: { id: screen.id, shareId: s.id } }))}
                        >
                          {t('screen.shares.revoke')}
                        </Button>
                      )}
                    </Flex>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** A name asked in a dialog: for a new screen or a renamed one. */
function NameDialog({
  title,
  initial,
  onDone,
  onClose,
}: {
  title: string;
  initial: string;
  onDone: (name: string) => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="420px">
        <Dialog.Title>{title}</Dialog.Title>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setBusy(true);
            onDone(name.trim())
              .catch((error: unknown) => notice.error(messageOf(error)))
              .finally(() => setBusy(false));
          }}
        >
          <label>
            <Text size="2">{t('screen.name')}</Text>
            <TextField.Root aria-label={t('screen.name')} value={name} maxLength={64} required onChange={(e) => setName(e.target.value)} />
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

/** The tenant's designed screens: a list, each viewed, designed, renamed, shared or deleted. */
function ScreenList() {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<{ id: string; mode: 'view' | 'design' } | null>(null);
  const [naming, setNaming] = useState<ScreenRow | 'new' | null>(null);
  const [sharing, setSharing] = useState<ScreenRow | null>(null);
  const list = useQuery({ queryKey: [SCREENS, 'list'], queryFn: () => callRoute('screen.list', { query: { pageSize: 100 } }) });
  const detail = useQuery({
    queryKey: [SCREENS, 'detail', open?.id],
    enabled: !!open,
    queryFn: () => callRoute('screen.detail', { query: { id: open!.id } }),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: [SCREENS] });
  if (open) {
    if (detail.isError)
      return (
        <Text color="red" role="alert">
          {messageOf(detail.error)}
        </Text>
      );
    if (!detail.data) return <Text color="gray">{t('common.loading')}</Text>;
    return open.mode === 'view' ? (
      <ScreenView screen={detail.data} onClose={() => setOpen(null)} />
    ) : (
      <Designer key={detail.data.updateTime} screen={detail.data} onBack={() => setOpen(null)} />
    );
  }
  const remove = async (s: ScreenRow) => {
    if (!(await confirm({ title: t('screen.delete'), message: deleteQuestion(t, t('objects.screen'), [s.name]), danger: true }))) return;
    try {
      await callRoute('screen.delete', { query: { id: s.id } });
      await refresh();
    } catch (e) {
      notice.error(messageOf(e));
    }
  };
  return (
    <Flex direction="column" gap="3" data-testid="screen-page">
      <Flex justify="between" align="center">
        <Heading size="3">{t('screen.title')}</Heading>
        {can(user, screenPerm.add) && (
          <Button onClick={() => setNaming('new')} data-testid="screen-create">
            {t('screen.create')}
          </Button>
        )}
      </Flex>
      {list.isError ? (
        <Text color="red" role="alert">
          {messageOf(list.error)}
        </Text>
      ) : !list.data ? (
        <Text color="gray">{t('common.loading')}</Text>
      ) : list.data.rows.length === 0 ? (
        <Card data-testid="screen-empty">
          <Text as="div" weight="bold">
            {t('screen.empty')}
          </Text>
          <Text as="div" size="2" color="gray">
            {t('screen.emptyHint')}
          </Text>
        </Card>
      ) : (
        <Table.Root variant="surface" data-testid="screen-list">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>{t('screen.name')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('screen.widgetsCount')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('screen.updateTime')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell />
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {list.data.rows.map((s) => (
              <Table.Row key={s.id}>
                <Table.Cell>{s.name}</Table.Cell>
                <Table.Cell>{s.widgets.length}</Table.Cell>
                <Table.Cell>{formatDate(s.updateTime, true)}</Table.Cell>
                <Table.Cell>
                  <Flex gap="2">
                    <Button size="1" variant="soft" onClick={() => setOpen({ id: s.id, mode: 'view' })}>
                      {t('screen.view')}
                    </Button>
                    {can(user, screenPerm.edit) && (
                      <>
                        <Button size="1" variant="soft" onClick={() => setOpen({ id: s.id, mode: 'design' })}>
                          {t('screen.edit')}
                        </Button>
                        <Button size="1" variant="soft" onClick={() => setNaming(s)}>
                          {t('screen.rename')}
                        </Button>
                      </>
                    )}
                    {can(user, screenPerm.share) && (
                      <Button size="1" variant="soft" onClick={() => setSharing(s)}>
                        {t('screen.share')}
                      </Button>
                    )}
                    {can(user, screenPerm.delete) && (
                      <Button size="1" variant="soft" color="red" onClick={() => void remove(s)}>
                        {t('screen.delete')}
                      </Button>
                    )}
                  </Flex>
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
      {naming && (
        <NameDialog
          title={naming === 'new' ? t('screen.create') : t('screen.rename')}
          initial={naming === 'new' ? '' : naming.name}
          onClose={() => setNaming(null)}
          onDone={async (name) => {
            if (naming === 'new') {
              const { id } = await callRoute('screen.create', { body: { name } });
              setOpen({ id, mode: 'design' });
            } else await callRoute('screen.rename', { body: { id: naming.id, name } });
            setNaming(null);
            await refresh();
          }}
        />
      )}
      {sharing && <SharesDialog screen={sharing} onClose={() => setSharing(null)} />}
    </Flex>
  );
}

/**
 * Operation center → data big screen (issue 20): the built-in overview board, and the tenant's own screens designed
 * on a 24-column grid of a 1920×1080 screen. A tenant without screens sees the overview first.
 */
export function BigScreensPage() {
  const { t } = useTranslation();
  const list = useQuery({ queryKey: [SCREENS, 'list'], queryFn: () => callRoute('screen.list', { query: { pageSize: 100 } }) });
  const [tab, setTab] = useState<'overview' | 'designed' | null>(null);
  const shown = tab ?? (list.data && list.data.rows.length > 0 ? 'designed' : 'overview');
  return (
    <Flex direction="column" gap="3">
      <Flex>
        <SegmentedControl.Root value={shown} onValueChange={(v) => setTab(v === 'designed' ? 'designed' : 'overview')}>
          <SegmentedControl.Item value="overview">{t('screen.overview')}</SegmentedControl.Item>
          <SegmentedControl.Item value="designed">{t('screen.designed')}</SegmentedControl.Item>
        </SegmentedControl.Root>
      </Flex>
      {shown === 'overview' ? <BigScreenPage /> : <ScreenList />}
    </Flex>
  );
}
