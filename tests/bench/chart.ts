/** The sustainable-rate curve as an SVG chart (echarts' server-side SVG renderer, the web app's chart library). */
import * as echarts from 'echarts';
import type { CurveStep } from './ingest-curve.ts';

/** Offered rate (dp/s) against publish-to-queryable p50 and p99 (ms, log scale), platform and bare pipeline, with the p99 limit. */
export function curveChart(title: string, steps: CurveStep[], limitMs: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 900, height: 500 });
  const series = (['platform', 'bare'] as const).flatMap((target) =>
    (['p50', 'p99'] as const).map((p) => ({
      type: 'line' as const,
      name: `${target} ${p}`,
      symbol: 'circle',
      lineStyle: { type: p === 'p50' ? ('dashed' as const) : ('solid' as const) },
      color: target === 'platform' ? '#2E68EA' : '#999999',
      data: steps
        .filter((s) => s.target === target)
        .map((s) => [s.offered_dp_s, Math.max(1, p === 'p50' ? s.query_p50_ms : Math.max(s.query_p99_ms, s.ack_p99_ms))]),
      ...(target === 'platform' && p === 'p99'
        ? {
            markLine: {
              symbol: 'none',
              label: { position: 'insideEndTop', formatter: `p99 limit ${limitMs} ms` },
              data: [{ yAxis: limitMs }],
            },
          }
        : {}),
    })),
  );
  chart.setOption({
    animation: false,
    backgroundColor: '#ffffff',
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 32 },
    grid: { left: 70, right: 30, top: 70, bottom: 50 },
    xAxis: { type: 'value', name: 'offered dp/s', nameLocation: 'middle', nameGap: 30 },
    yAxis: { type: 'log', name: 'ms from publish (p99: queryable or PUBACK, the later)', nameLocation: 'middle', nameGap: 50, min: 1 },
    series,
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}
