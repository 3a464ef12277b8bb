import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { benchProduct, benchTenantApi, registerDevices, startBarePipeline, startBenchPlatform } from './bare.ts';
import { cpuSpent, rollupRuns, rssPeak, type Figure } from './figure.ts';
import { startGenerator } from './generator.ts';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);
/** How long after a step's last message is due PUBACKs are waited for. */
const DRAIN_MS = 5000;

/**
 * `ingest-cpu` (issue 23): what a data point costs, in CPU microseconds of the bench process (the platform, the
 * bare pipeline and chDB's threads run in it; the generator and PostgreSQL do not), at a fixed offered rate that
 * both targets hold (BENCH_CPU_RATE dp/s, default 10,000) for BENCH_SECONDS, 3 and 10 values a message (BENCH_CPU_VARS), through
 * the platform and through the bare pipeline. A rate figure on a machine shared at load 10-25 says as much about
 * the machine as about the code; the CPU a data point costs moves far less with the load, so this is the figure
 * a change to the per-message path is measured by. BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each
 * platform step there (the step only: start-up and device registration left out).
 */
export async function benchIngestCpu(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const rate = Number(process.env.BENCH_CPU_RATE ?? 10_000);
  const profileDir = process.env.BENCH_CPU_PROF;
  const log = (line: string) => process.stderr.write(`ingest-cpu: ${line}\n`);
  const bench = await startBenchPlatform('cpu');
  const { platform } = bench;
  const bare = await startBarePipeline(platform);
  const generator = await startGenerator();
  const figures: Figure[] = [];
  try {
    const { call } = await benchTenantApi(platform);
    const varsList = process.env.BENCH_CPU_VARS ? process.env.BENCH_CPU_VARS.split(',').map(Number) : [3, 10];
    for (const vars of varsList) {
      const productId = await benchProduct(call, `BENCH-CPU-${vars}`, vars);
      const devices = await registerDevices(call, productId, `CPU${vars}`, DEVICES);
      await platform.context.awaitProjections?.();
      const measure = async (target: 'platform' | 'bare', url: string, flush: () => Promise<void>) => {
        await generator.connect(url, devices, { vars });
        // Warm-up, not counted: sessions, presence (devices coming online are events) and the JIT settle.
        await generator.step(rate / vars, 2, DRAIN_MS);
        await flush();
        const session = profileDir && target === 'platform' ? new Session() : null;
        if (session) {
          session.connect();
          await session.post('Profiler.enable');
          await session.post('Profiler.start');
        }
        const rss = rssPeak();
        const rollup = rollupRuns(target === 'platform' ? platform.timeseries : null);
        const cpu = cpuSpent();
        const run = await generator.step(rate / vars, seconds, DRAIN_MS);
        await flush();
        const spent = cpu.stop();
        if (session) {
          const { profile } = await session.post('Profiler.stop');
          const file = path.join(profileDir!, `ingest-cpu-${vars}dp-${Date.now()}.cpuprofile`);
          await writeFile(file, JSON.stringify(profile));
          session.disconnect();
          log(`profile ${file}`);
        }
        await generator.disconnect();
        const points = run.acked * vars;
        const figure: Figure = {
          bench: `ingest-cpu-${vars}dp${target === 'bare' ? '-bare' : ''}`,
          value: points > 0 ? Math.round((spent.node_s * 1e6) / points) : null,
          unit: 'cpu µs/dp',
          limit: null,
          limit_of: 'see ingest-cpu-*dp-bare',
          offered_dp_s: rate,
          acked_dp: points,
          not_acked: (run.offered - run.acked) * vars,
          node_cpu_s: spent.node_s,
          tree_cpu_s: spent.total_s,
          rss_mb: rss.stop(),
          ...rollup.stop(),
        };
        log(JSON.stringify(figure));
        return figure;
      };
      const ours = await measure('platform', bench.mqttUrl, async () => {
        await platform.ingest!.flush();
        await platform.context.awaitProjections?.();
      });
      const theirs = await measure('bare', bare.url, async () => {});
      figures.push(
        {
          ...ours,
          limit: theirs.value,
          limit_of: 'the bare pipeline (Aedes hook, JSON.parse, RowBinary group commit into chDB, no rollups), same rate, same run',
          ratio: ours.value && theirs.value ? Number((ours.value / theirs.value).toFixed(2)) : null,
        },
        theirs,
      );
    }
    return figures;
  } finally {
    await generator.close();
    await bare.close();
    await bench.stop();
  }
}
