import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Flex, Heading, Text } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  SCREEN_COLUMNS,
  SCREEN_ROWS,
  SCREEN_WIDGET_LIMIT,
  screenWidgetKinds,
  type ScreenRow,
  type ScreenWidget,
  type ScreenWidgetKind,
} from '@iot/contracts/screen/model.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { useRouteLeaveGuard } from '../ui/form.tsx';
import { Inspector } from './Inspector.tsx';
import { DATA_REFRESH_MS, SCREENS, useRecentHistory, useSize } from './useScreen.ts';
import { CELL_H, CELL_W, Stage, WidgetFrame, useHistory } from './Widgets.tsx';

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

/** A free spot for a widget of this size: the first cell, row by row, where it overlaps none. */
function freeSpot(widgets: ScreenWidget[], w: number, h: number): { x: number; y: number } {
  for (let y = 0; y + h <= SCREEN_ROWS; y++)
    for (let x = 0; x + w <= SCREEN_COLUMNS; x++)
      if (!widgets.some((o) => x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h)) return { x, y };
  return { x: 0, y: 0 };
}

/** Whether a widget can be saved as it is: a device binding names its device and variable, a statistic its task. */
const incomplete = (w: ScreenWidget) =>
  (w.binding.source === 'device' && (!w.binding.deviceId || !w.binding.variable)) || (w.binding.source === 'stat' && !w.binding.statTaskId);

/** The designer of one screen: palette, the grid (drag to move, the corner to resize), the inspector and save. */
export function Designer({ screen, onBack }: { screen: ScreenRow; onBack: () => void }) {
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
  const recent = useRecentHistory(saved);
  const history = useHistory(saved, data.data?.widgets, recent);
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
      // A new map shows every device of the tenant until a group or a product narrows it.
      binding: kind === 'map' ? { source: 'map', groupId: null, productId: null } : { source: 'none' },
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
