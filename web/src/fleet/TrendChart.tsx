import { useEffect, useRef } from 'react';
import type { ECharts } from 'echarts';

export interface TrendSeries {
  name: string;
  /** [instant, value] in time order. */
  points: Array<[string, number | null]>;
}

const COLOURS = ['#2E68EA', '#E5484D', '#30A46C', '#F76B15', '#8E4EC6', '#12A594'];

/**
 * A line per series over time (echarts, loaded with the screen that shows it). The chart is made once and
 * given each new set of points, so a live trend grows without redrawing from scratch. The legend sits above
 * the plot, clear of the time axis's labels. `data-points` counts the points drawn.
 */
export function TrendChart({
  series,
  label,
  height = 320,
  sharedAxis = false,
}: {
  series: TrendSeries[];
  label: string;
  height?: number;
  /** One value axis for every line (lines of one quantity, as a report's devices are). */
  sharedAxis?: boolean;
}) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const latest = useRef(series);
  latest.current = series;

  // Two lines of different magnitudes (an energy total beside a current) each get an axis of their own.
  const optionOf = (list: TrendSeries[]) => ({
    series: list.map((s, i) => ({
      name: s.name,
      type: 'line',
      showSymbol: false,
      data: s.points,
      yAxisIndex: i === 1 && !sharedAxis ? 1 : 0,
    })),
    yAxis: [
      { type: 'value', scale: true },
      { type: 'value', scale: true, show: list.length > 1 && !sharedAxis, splitLine: { show: false } },
    ],
    legend: { data: list.map((s) => s.name), top: 0, left: 'center', type: 'scroll' },
  });

  useEffect(() => {
    let disposed = false;
    void import('echarts').then((echarts) => {
      if (disposed || !el.current) return;
      const made = echarts.init(el.current);
      chart.current = made;
      made.setOption({
        color: COLOURS,
        animation: false,
        tooltip: { trigger: 'axis' },
        grid: { left: 64, right: 64, top: 48, bottom: 32 },
        xAxis: { type: 'time' },
        ...optionOf(latest.current),
      });
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
    chart.current?.setOption(optionOf(series), { replaceMerge: ['series', 'yAxis'] });
  }, [series]);

  const points = series.reduce((n, s) => n + s.points.length, 0);
  return <div ref={el} style={{ width: '100%', height }} role="img" aria-label={label} data-points={points} className="trend-chart" />;
}
