import type { EChartsOption, LineSeriesOption } from 'echarts';
import { chinaOutline } from './chinaOutline.ts';

/** How a device shows on a map: alarmed (any active alarm) over online and offline. */
export const mapKinds = ['online', 'offline', 'alarm'] as const;
export type MapKind = (typeof mapKinds)[number];
export const mapKindColours: Record<MapKind, string> = { online: '#30A46C', offline: '#8B8D98', alarm: '#E5484D' };

/**
 * The longitude/latitude plane the data map and the big screen's map widget draw devices on: China, widened to every
 * point outside it with a degree's margin, under the outline of its mainland, Hainan and Taiwan (no tile service).
 */
export function mapPlane(
  points: ReadonlyArray<{ lng: number; lat: number }>,
  style: { outlineName: string; outline: string; text?: string; split?: string },
): { xAxis: EChartsOption['xAxis']; yAxis: EChartsOption['yAxis']; outline: LineSeriesOption[] } {
  const lngs = [73, 135, ...points.map((p) => p.lng)];
  const lats = [18, 54, ...points.map((p) => p.lat)];
  const [x0, x1, y0, y1] = [
    Math.floor(Math.min(...lngs) - 1),
    Math.ceil(Math.max(...lngs) + 1),
    Math.floor(Math.min(...lats) - 1),
    Math.ceil(Math.max(...lats) + 1),
  ];
  const axis = (min: number, max: number) => ({
    type: 'value' as const,
    min,
    max,
    axisLabel: { formatter: '{value}°', ...(style.text ? { color: style.text } : {}) },
    splitLine: { lineStyle: { type: 'dashed' as const, opacity: 0.4, ...(style.split ? { color: style.split } : {}) } },
  });
  return {
    xAxis: axis(x0, x1),
    yAxis: axis(y0, y1),
    outline: chinaOutline.map((ring) => ({
      type: 'line',
      name: style.outlineName,
      data: ring,
      symbol: 'none',
      silent: true,
      lineStyle: { color: style.outline, width: 1 },
      tooltip: { show: false },
    })),
  };
}
