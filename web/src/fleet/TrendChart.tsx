import { useEffect, useRef } from 'react';

export interface TrendSeries {
  name: string;
  /** [instant, value] in time order. */
  points: Array<[string, number | null]>;
}
interface EChart {
  dispose(): void;
  setOption(option: unknown, opts?: { replaceMerge?: string[] }): void;
  resize(): void;
}

const COLOURS = ['#2E68EA', '#E5484D', '#30A46C', '#F76B15', '#8E4EC6', '#12A594'];

/**
 * A line per series over time (echarts, loaded with the screen that shows it). The chart is made once and
 * given each new set of points, so a live trend grows without redrawing from scratch. The legend sits above
 * the plot, clear of the time axis's labels. `data-points` counts the points drawn.
 */
export function TrendChart({ series, label, height = 320 }: { series: TrendSeries[]; label: string; height?: number }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<EChart | null>(null);
  const latest = useRef(series);
  latest.current = series;

  const optionOf = (list: TrendSeries[]) => ({
    series: list.map((s) => ({ name: s.name, type: 'line', showSymbol: false, data: s.points })),
    legend: { data: list.map((s) => s.name), top: 0, left: 'center', type: 'scroll' },
  });

  useEffect(() => {
    let disposed = false;
    void import('echarts').then((echarts) => {
      if (disposed || !el.current) return;
      const made = echarts.init(el.current) as unknown as EChart;
      chart.current = made;
      made.setOption({
        color: COLOURS,
        animation: false,
        tooltip: { trigger: 'axis' },
        grid: { left: 56, right: 24, top: 48, bottom: 32 },
        xAxis: { type: 'time' },
        yAxis: { type: 'value', scale: true },
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
    chart.current?.setOption(optionOf(series), { replaceMerge: ['series'] });
  }, [series]);

  const points = series.reduce((n, s) => n + s.points.length, 0);
  return <div ref={el} style={{ width: '100%', height }} role="img" aria-label={label} data-points={points} className="trend-chart" />;
}
