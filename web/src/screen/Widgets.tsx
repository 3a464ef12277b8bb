import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EChartsOption } from 'echarts';
import type { ScreenWidget, ScreenWidgetData } from '@iot/contracts/screen/model.ts';
import { SCREEN_HEIGHT, SCREEN_HISTORY_POINTS, SCREEN_ROWS, SCREEN_COLUMNS, SCREEN_WIDTH } from '@iot/contracts/screen/model.ts';
import { Chart } from '../analysis/Chart.tsx';
import { formatDate } from '../ui/format.ts';
import '../operation/i18n.ts';
import { mapKindColours, mapKinds, mapPlane, type MapKind } from '../operation/mapPlane.ts';
import { useProvinces } from '../operation/provinces.ts';

export const CELL_W = SCREEN_WIDTH / SCREEN_COLUMNS;
export const CELL_H = SCREEN_HEIGHT / SCREEN_ROWS;
const TITLE_H = 28;
const TEXT = '#C9D6F2';
const ACCENT = '#4CC3FF';
const LEVEL_COLOURS = ['#8B8D98', '#3E7BFA', '#FFC53D', '#F76B15', '#E5484D'];
const AXIS = { axisLine: { lineStyle: { color: '#35508A' } }, axisLabel: { color: TEXT }, splitLine: { lineStyle: { color: '#1C2E57' } } };
const dark = { backgroundColor: 'transparent', textStyle: { color: TEXT } } satisfies EChartsOption;

/** The most values a device chart keeps. */
export const HISTORY_KEPT = SCREEN_HISTORY_POINTS;

/** A device variable's recent values, for charts of a device binding: [time, value]. */
export type History = Record<string, Array<[string, number]>>;

/** The named values a widget's data gives: a statistic's windows, alarms by level, a device's recent values. */
function seriesOf(data: ScreenWidgetData | undefined, history: Array<[string, number]>, levelName: (l: number) => string) {
  if (!data) return [];
  if (data.source === 'stat') return data.points.map((p) => ({ name: p.windowStart, key: p.key, value: p.value ?? 0 }));
  if (data.source === 'alarm') return data.byLevel.map((l) => ({ name: levelName(l.level), key: String(l.level), value: l.count }));
  return history.map(([ts, value]) => ({ name: ts, key: '', value }));
}

const short = (name: string) => (/^\d{4}-\d\d-\d\dT/.test(name) ? formatDate(name, true).slice(5, 16) : name);
const numberOf = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

function Clock() {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <div className="sw-clock">{formatDate(now, true)}</div>;
}

/** What one widget shows, drawn to fill its grid cells (its pixel size on the 1920×1080 stage). */
export function WidgetBody({
  widget,
  data,
  history,
  onSwitch,
}: {
  widget: ScreenWidget;
  data: ScreenWidgetData | undefined;
  history: Array<[string, number]>;
  /** Sets a switch's variable (1 on, 0 off): given only where the viewer may command devices, never on a shared link. */
  onSwitch?: ((widget: ScreenWidget, value: 0 | 1) => void) | undefined;
}) {
  const { t } = useTranslation();
  const provinces = useProvinces(widget.kind === 'map');
  const o = widget.options;
  const colour = o.color ?? ACCENT;
  const height = widget.h * CELL_H - TITLE_H - 8;
  const label = widget.title || t(`screen.kinds.${widget.kind}`);
  const levelName = (l: number) => t(`alarm.levels.${l}`);
  const device = data?.source === 'device' ? data : null;
  const min = numberOf(o.min) ?? 0;
  const max = numberOf(o.max) ?? 100;
  const value = device?.value ?? null;
  const display =
    value !== null && o.decimals !== undefined
      ? `${value.toFixed(o.decimals)}${(o.unit ?? device?.unit) ? ` ${o.unit ?? device?.unit}` : ''}`
      : (device?.display ?? null);
  const share = value === null ? 0 : Math.min(1, Math.max(0, (value - min) / (max - min)));
  const series = seriesOf(data, history, levelName);
  const chart = (option: EChartsOption, count: number) => (
    <Chart label={label} count={count} height={height} option={{ ...dark, ...option }} />
  );
  const none = <div className="sw-empty">{widget.binding.source === 'none' ? t('screen.unbound') : t('screen.noData')}</div>;

  switch (widget.kind) {
    case 'text':
      return (
        <div className="sw-text" style={{ color: o.color ?? TEXT }}>
          {textOf(o.text)}
        </div>
      );
    case 'clock':
      return <Clock />;
    case 'image':
      return o.url ? <img className="sw-media" src={o.url} alt={label} /> : <div className="sw-empty">{t('screen.imageSlot')}</div>;
    case 'video':
      return o.url ? (
        <video className="sw-media" src={o.url} autoPlay muted loop playsInline aria-label={label} />
      ) : (
        <div className="sw-empty sw-video">▶ {t('screen.videoSlot')}</div>
      );
    case 'number':
      if (data?.source === 'alarm')
        return (
          <div className="sw-number" style={{ color: colour }} data-testid={`value-${widget.id}`}>
            {data.byLevel.reduce((n, l) => n + l.count, 0)}
          </div>
        );
      if (data?.source === 'stat')
        return (
          <div className="sw-number" style={{ color: colour }} data-testid={`value-${widget.id}`}>
            {data.points.at(-1)?.value ?? t('screen.noValue')}
          </div>
        );
      return device ? (
        <div className="sw-number" style={{ color: colour }} data-testid={`value-${widget.id}`}>
          {display ?? t('screen.noValue')}
        </div>
      ) : (
        none
      );
    case 'gauge':
      if (!device) return none;
      return chart(
        {
          series: [
            {
              type: 'gauge',
              min,
              max,
              progress: { show: true, width: 12, itemStyle: { color: colour } },
              axisLine: { lineStyle: { width: 12, color: [[1, '#1C2E57']] } },
              axisTick: { show: false },
              splitLine: { length: 8, lineStyle: { color: '#35508A' } },
              axisLabel: { color: TEXT, distance: 16 },
              pointer: { show: false },
              title: { show: false },
              detail: { valueAnimation: false, formatter: () => display ?? '--', color: colour, fontSize: 24, offsetCenter: [0, '10%'] },
              data: [{ value: value ?? min }],
            },
          ],
        },
        1,
      );
    case 'progress':
    case 'liquid':
      if (!device) return none;
      return widget.kind === 'progress' ? (
        <div className="sw-progress">
          <div className="sw-progress-bar">
            <div style={{ width: `${share * 100}%`, background: colour }} />
          </div>
          <span data-testid={`value-${widget.id}`}>{display ?? t('screen.noValue')}</span>
        </div>
      ) : (
        <div className="sw-liquid">
          <div className="sw-tank">
            <div className="sw-fill" style={{ height: `${share * 100}%`, background: colour }} />
            <span data-testid={`value-${widget.id}`}>{display ?? t('screen.noValue')}</span>
          </div>
        </div>
      );
    case 'switch':
    case 'deviceStatus': {
      if (!device) return none;
      const lit = widget.kind === 'switch' ? value !== null && value !== 0 : device.online === true;
      return (
        <div className="sw-status">
          <span className="sw-lamp" data-lit={lit} style={lit ? { background: '#30A46C', boxShadow: '0 0 14px #30A46C' } : undefined} />
          <span>
            {widget.kind === 'switch' ? (lit ? t('screen.on') : t('screen.off')) : lit ? t('screen.online') : t('screen.offline')}
          </span>
          <small>{device.deviceName ?? ''}</small>
          {widget.kind === 'switch' && onSwitch && (
            <button type="button" className="sw-switch" data-testid={`switch-${widget.id}`} onClick={() => onSwitch(widget, lit ? 0 : 1)}>
              {lit ? t('screen.turnOff') : t('screen.turnOn')}
            </button>
          )}
        </div>
      );
    }
    case 'map': {
      if (data?.source === 'map') {
        const plane = mapPlane(data.points, provinces, {
          outlineName: t('screen.mapOutline'),
          outline: '#4C7BD9',
          provinceName: (name) => t(`provinces.${name}`),
          text: TEXT,
          split: '#1C2E57',
        });
        const kindOf = (p: (typeof data.points)[number]): MapKind => (p.alarmLevel !== null ? 'alarm' : p.online ? 'online' : 'offline');
        return (
          <div className="sw-map" data-testid={`map-${widget.id}`} data-count={data.points.length} data-unlocated={data.unlocated}>
            {chart(
              {
                animation: false,
                grid: { left: 44, right: 12, top: 12, bottom: 48 },
                tooltip: { trigger: 'item', formatter: (p) => String((p as { data?: { name?: string } }).data?.name ?? '') },
                legend: { bottom: 0, textStyle: { color: TEXT }, data: mapKinds.map((k) => t(`screen.mapLegend.${k}`)) },
                xAxis: plane.xAxis,
                yAxis: plane.yAxis,
                series: [
                  ...plane.outline,
                  ...mapKinds.map((k) => ({
                    type: 'scatter' as const,
                    name: t(`screen.mapLegend.${k}`),
                    itemStyle: { color: k === 'alarm' ? LEVEL_COLOURS[4] : mapKindColours[k] },
                    symbolSize: k === 'alarm' ? 12 : 8,
                    z: k === 'alarm' ? 4 : 3,
                    data: data.points
                      .filter((p) => kindOf(p) === k)
                      .map((p) => ({
                        value: [p.lng, p.lat],
                        name: p.alarmLevel !== null ? `${p.name} (${p.sn}) · ${levelName(p.alarmLevel)}` : `${p.name} (${p.sn})`,
                        // An alarm's colour is its level's.
                        ...(p.alarmLevel !== null ? { itemStyle: { color: LEVEL_COLOURS[p.alarmLevel - 1] } } : {}),
                      })),
                  })),
                ],
              },
              data.points.length,
            )}
          </div>
        );
      }
      // A map of the first release was bound to one device: it shows that device's status.
      if (!device) return none;
      return (
        <div className="sw-status">
          <span className="sw-pin" style={{ color: device.online ? '#30A46C' : '#8B8D98' }}>
            ●
          </span>
          <span>{device.deviceName ?? ''}</span>
          <small>{t('screen.mapHint')}</small>
        </div>
      );
    }
    case 'alarmList':
    case 'table': {
      if (data?.source === 'alarm')
        return (
          <div className="sw-table" style={{ maxHeight: height }}>
            <table>
              <tbody>
                {data.rows.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <span className="sw-level" style={{ background: LEVEL_COLOURS[a.level - 1] }}>
                        {levelName(a.level)}
                      </span>
                    </td>
                    <td>{a.device}</td>
                    <td>{a.variable ?? ''}</td>
                    <td>{formatDate(a.raisedAt, true).slice(5)}</td>
                  </tr>
                ))}
                {data.rows.length === 0 && (
                  <tr>
                    <td>{t('screen.noData')}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        );
      if (series.length === 0 && !device) return none;
      const rows = device
        ? [[formatDate(device.ts ?? new Date(), true), device.deviceName ?? '', display ?? '--']]
        : series
            .slice(-12)
            .reverse()
            .map((s) => [short(s.name), s.key, String(s.value)]);
      return (
        <div className="sw-table" style={{ maxHeight: height }}>
          <table>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) => (
                    <td key={j}>{c}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'line':
    case 'bar':
    case 'scatter':
      if (series.length === 0) return none;
      return chart(
        {
          tooltip: { trigger: 'axis' },
          grid: { left: 44, right: 12, top: 12, bottom: 28 },
          xAxis: { type: 'category', data: series.map((s) => short(s.name)), ...AXIS },
          yAxis: { type: 'value', ...AXIS },
          series: [
            {
              type: widget.kind,
              color: colour,
              data: series.map((s) => s.value),
              ...(widget.kind === 'line' ? { smooth: true, areaStyle: { opacity: 0.15 } } : {}),
              ...(widget.kind === 'bar' ? { barMaxWidth: 28 } : {}),
            },
          ],
        },
        series.length,
      );
    case 'pie': {
      const slices =
        data?.source === 'stat'
          ? latestByKey(series)
          : data?.source === 'device'
            ? [
                { name: display ?? '', value: value ?? 0 },
                { name: '', value: Math.max(0, max - (value ?? 0)) },
              ]
            : series;
      if (slices.length === 0) return none;
      return chart(
        {
          tooltip: { trigger: 'item' },
          color: [colour, '#1C2E57', '#30A46C', '#F76B15', '#8E4EC6'],
          series: [
            {
              type: 'pie',
              radius: ['40%', '70%'],
              label: { color: TEXT, fontSize: 16 },
              // Alarms keep their level's colour whichever levels are present.
              data: slices.map((s) => ({
                name: s.name,
                value: s.value,
                ...(data?.source === 'alarm' && 'key' in s ? { itemStyle: { color: LEVEL_COLOURS[Number(s.key) - 1] } } : {}),
              })),
            },
          ],
        },
        slices.length,
      );
    }
    case 'radar': {
      const spokes = data?.source === 'stat' ? latestByKey(series) : series.slice(-8).map((s) => ({ name: short(s.name), value: s.value }));
      if (spokes.length < 3) return spokes.length === 0 ? none : chart({ series: [{ type: 'pie', data: spokes }] }, spokes.length);
      const top = Math.max(...spokes.map((s) => s.value), 1);
      return chart(
        {
          radar: {
            indicator: spokes.map((s) => ({ name: s.name, max: top })),
            axisName: { color: TEXT },
            splitLine: { lineStyle: { color: '#35508A' } },
          },
          series: [{ type: 'radar', color: colour, areaStyle: { opacity: 0.3 }, data: [{ value: spokes.map((s) => s.value) }] }],
        },
        spokes.length,
      );
    }
    case 'heatmap': {
      if (series.length === 0) return none;
      // Hours across, days down: what the series holds at each hour of each day.
      const cells = series.map((s) => {
        const at = new Date(s.name);
        return Number.isNaN(at.getTime()) ? null : { day: formatDate(at).slice(5, 10), hour: at.getHours(), value: s.value };
      });
      const days = [...new Set(cells.flatMap((c) => (c ? [c.day] : [])))];
      const top = Math.max(...series.map((s) => s.value), 1);
      return chart(
        {
          tooltip: {},
          grid: { left: 48, right: 12, top: 8, bottom: 48 },
          xAxis: { type: 'category', data: Array.from({ length: 24 }, (_, h) => String(h)), ...AXIS },
          yAxis: { type: 'category', data: days, ...AXIS },
          visualMap: {
            min: 0,
            max: top,
            calculable: false,
            orient: 'horizontal',
            left: 'center',
            bottom: 0,
            itemHeight: 80,
            textStyle: { color: TEXT },
            inRange: { color: ['#10264F', colour] },
          },
          series: [{ type: 'heatmap', data: cells.flatMap((c) => (c ? [[c.hour, days.indexOf(c.day), c.value]] : [])) }],
        },
        series.length,
      );
    }
    default:
      return none;
  }
}

/** A statistic's newest window per key (one slice or spoke per device, group or product). */
function latestByKey(series: Array<{ name: string; key: string; value: number }>) {
  const byKey = new Map<string, number>();
  for (const s of series) byKey.set(s.key, s.value);
  return [...byKey].map(([name, value]) => ({ name, value }));
}

/** A widget's frame on the stage: its title bar and body, placed on the grid. */
export function WidgetFrame({
  widget,
  data,
  history,
  className,
  children,
  onSwitch,
  ...rest
}: {
  widget: ScreenWidget;
  data: ScreenWidgetData | undefined;
  history: Array<[string, number]>;
  onSwitch?: ((widget: ScreenWidget, value: 0 | 1) => void) | undefined;
  className?: string;
  children?: React.ReactNode;
} & React.HTMLAttributes<HTMLDivElement>) {
  const { t } = useTranslation();
  return (
    <div
      className={`sw-frame ${className ?? ''}`}
      data-testid={`widget-${widget.id}`}
      data-kind={widget.kind}
      style={{ left: widget.x * CELL_W, top: widget.y * CELL_H, width: widget.w * CELL_W, height: widget.h * CELL_H }}
      {...rest}
    >
      <div className="sw-inner">
        {widget.kind !== 'clock' && widget.kind !== 'text' && (
          <div className="sw-title">{widget.title || t(`screen.kinds.${widget.kind}`)}</div>
        )}
        <div className="sw-body">
          <WidgetBody widget={widget} data={data} history={history} onSwitch={onSwitch} />
        </div>
      </div>
      {children}
    </div>
  );
}

/**
 * Keeps the values of device-bound widgets, so that line, bar and scatter charts of a device move: those of `recent`
 * (loaded when the page opened, where the viewer may read history) and those seen since.
 */
export function useHistory(widgets: ScreenWidget[], data: Record<string, ScreenWidgetData> | undefined, recent?: History): History {
  const [history, setHistory] = useState<History>({});
  useEffect(() => {
    if (!recent) return;
    setHistory((old) => {
      const next: History = { ...old };
      for (const [id, points] of Object.entries(recent)) {
        const seen = new Map([...points, ...(old[id] ?? [])]);
        next[id] = [...seen].sort(([a], [b]) => a.localeCompare(b)).slice(-HISTORY_KEPT);
      }
      return next;
    });
  }, [recent]);
  useEffect(() => {
    if (!data) return;
    setHistory((old) => {
      const next: History = {};
      for (const w of widgets) {
        const d = data[w.id];
        const kept = old[w.id] ?? [];
        if (d?.source !== 'device' || d.value === null || d.ts === null) {
          next[w.id] = kept;
          continue;
        }
        next[w.id] = kept.at(-1)?.[0] === d.ts ? kept : [...kept, [d.ts, d.value] as [string, number]].slice(-HISTORY_KEPT);
      }
      return next;
    });
  }, [data, widgets]);
  return history;
}

/**
 * The 1920×1080 stage scaled to fit its box (the window in full screen), with the widgets on it. `editing` leaves room
 * for the designer's handles; the scale is given to the caller so that pointer moves can be turned into cells.
 */
export function Stage({
  width,
  height,
  children,
  onScale,
}: {
  width: number;
  height: number;
  children: React.ReactNode;
  onScale?: (s: number) => void;
}) {
  const scale = Math.max(0.1, Math.min(width / SCREEN_WIDTH, height / SCREEN_HEIGHT));
  useEffect(() => {
    onScale?.(scale);
  }, [scale, onScale]);
  return (
    <div className="sw-stage-box" style={{ width: SCREEN_WIDTH * scale, height: SCREEN_HEIGHT * scale }}>
      <div className="sw-stage" style={{ transform: `scale(${scale})` }} data-testid="screen-stage">
        {children}
      </div>
    </div>
  );
}
