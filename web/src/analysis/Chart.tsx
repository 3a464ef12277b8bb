import { useEffect, useRef } from 'react';
import type { ECharts, EChartsOption } from 'echarts';

const COLOURS = ['#2E68EA', '#E5484D', '#30A46C', '#F76B15', '#8E4EC6', '#12A594'];

/**
 * One echarts chart (bar, pie or line, as `option` says), made once and given each new option; echarts is
 * loaded with the screen that shows it. `data-count` says how many values it draws, for tests and readers.
 */
export function Chart({ option, label, height = 280, count }: { option: EChartsOption; label: string; height?: number; count: number }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const latest = useRef(option);
  latest.current = option;

  useEffect(() => {
    let disposed = false;
    void import('echarts').then((echarts) => {
      if (disposed || !el.current) return;
      chart.current = echarts.init(el.current);
      chart.current.setOption({ color: COLOURS, animation: false, ...latest.current });
    });
    const resize = () => chart.current?.resize();
    window.addEventListener('resize', resize);
    return () => {
      disposed = true;
      window.removeEventListener('resize', resize);
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption({ color: COLOURS, animation: false, ...option }, { notMerge: true });
  }, [option]);

  return <div ref={el} style={{ width: '100%', height }} role="img" aria-label={label} data-count={count} className="analysis-chart" />;
}

/** A bar chart of named values. */
export const barOption = (names: string[], values: number[], horizontal = false): EChartsOption => ({
  tooltip: { trigger: 'axis' },
  grid: { left: horizontal ? 120 : 48, right: 24, top: 24, bottom: 48, containLabel: false },
  [horizontal ? 'yAxis' : 'xAxis']: { type: 'category', data: names, axisLabel: { interval: 0, width: 110, overflow: 'truncate' } },
  [horizontal ? 'xAxis' : 'yAxis']: { type: 'value', minInterval: 1 },
  series: [{ type: 'bar', data: values, barMaxWidth: 36 }],
});

/** A pie of named values. */
export const pieOption = (slices: Array<{ name: string; value: number }>, colours?: string[]): EChartsOption => ({
  tooltip: { trigger: 'item' },
  legend: { bottom: 0, type: 'scroll' },
  ...(colours ? { color: colours } : {}),
  series: [{ type: 'pie', radius: ['40%', '68%'], center: ['50%', '45%'], data: slices, label: { formatter: '{b}: {c}' } }],
});

/** A line over categories (days). */
export const lineOption = (names: string[], series: Array<{ name: string; values: number[] }>): EChartsOption => ({
  tooltip: { trigger: 'axis' },
  legend: { top: 0 },
  grid: { left: 48, right: 24, top: 36, bottom: 32 },
  xAxis: { type: 'category', data: names, boundaryGap: false },
  yAxis: { type: 'value', minInterval: 1 },
  series: series.map((s) => ({ name: s.name, type: 'line', data: s.values, smooth: true, areaStyle: { opacity: 0.08 } })),
});
