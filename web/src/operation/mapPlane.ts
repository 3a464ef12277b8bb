import type { EChartsOption, LineSeriesOption, ScatterSeriesOption } from 'echarts';
import type { Province } from './provinces.ts';

/** How a device shows on a map: alarmed (any active alarm) over online and offline. */
export const mapKinds = ['online', 'offline', 'alarm'] as const;
export type MapKind = (typeof mapKinds)[number];
export const mapKindColours: Record<MapKind, string> = { online: '#30A46C', offline: '#8B8D98', alarm: '#E5484D' };

/**
 * The longitude/latitude plane the data map and the big screen's map widget draw devices on: China, widened to every
 * point outside it with a degree's margin, under its provinces' borders and names (no tile service); none until the
 * provinces have loaded.
 */
export function mapPlane(
  points: ReadonlyArray<{ lng: number; lat: number }>,
  provinces: readonly Province[] | null,
  style: { outlineName: string; outline: string; provinceName: (name: string) => string; text?: string; split?: string },
): { xAxis: EChartsOption['xAxis']; yAxis: EChartsOption['yAxis']; outline: Array<LineSeriesOption | ScatterSeriesOption> } {
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
    outline: provinces
      ? [
          {
            type: 'line',
            name: style.outlineName,
            // Every ring in one series, a gap between rings.
            data: provinces.flatMap((p) => p.rings.flatMap((ring): Array<[number, number] | [null, null]> => [...ring, [null, null]])),
            symbol: 'none',
            silent: true,
            animation: false,
            lineStyle: { color: style.outline, width: 1, opacity: 0.8 },
            tooltip: { show: false },
            z: 1,
          },
          {
            type: 'scatter',
            name: style.outlineName,
            silent: true,
            symbolSize: 0,
            data: provinces.map((p) => ({ value: p.centre, name: style.provinceName(p.name) })),
            label: { show: true, formatter: '{b}', fontSize: 10, color: style.text ?? '#8B8D98' },
            labelLayout: { hideOverlap: true },
            tooltip: { show: false },
            z: 1,
          },
        ]
      : [],
  };
}
