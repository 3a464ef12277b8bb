import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';

/** One line of `npm run bench`: a figure and, measured in the same run, the limit it is compared with. */
export interface Figure {
  bench: string;
  value: number | null;
  unit: string;
  limit: number | null;
  limit_of: string;
  /** Peak resident memory of the bench process (the platform's, which runs in it) while the figure was measured. */
  rss_mb?: number;
  [extra: string]: unknown;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** The peak RSS of this process from now until `stop`, sampled every 100 ms. */
export function rssPeak() {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100);
  timer.unref();
  return {
    get mb() {
      return mb(Math.max(peak, process.memoryUsage.rss()));
    },
    stop() {
      clearInterval(timer);
      return this.mb;
    },
  };
}

/**
 * The line of a figure: `rss_mb` is the bench's own when it measured one, else the peak over the bench's run;
 * `load_1m` is the machine's load average as the line is printed (a figure on a shared machine means little without it).
 */
export function figureLine(figure: Figure, runPeakMb: number): string {
  return JSON.stringify({ ...figure, rss_mb: figure.rss_mb ?? runPeakMb, load_1m: Number(loadavg()[0]!.toFixed(1)) });
}

/** A file of /proc, or null when its process is gone. */
function procFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** User and system CPU seconds of a process and every process under it (reaped ones included), from /proc. */
function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  const walk = (id: number) => {
    const stat = procFile(`/proc/${id}/stat`);
    if (stat === null) return;
    // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 14th to 17th of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${id}/task`);
    } catch {
      return;
    }
    for (const task of tasks)
      for (const child of (procFile(`/proc/${id}/task/${task}/children`) ?? '').split(' ').filter(Boolean)) walk(Number(child));
  };
  walk(pid);
  return ticks / 100;
}

/**
 * CPU seconds spent from now until `stop`, by this process (`node_s`) and by it with every process it started
 * (`total_s`: the embedded PostgreSQL's backends too): what a change costs, told apart from how busy the machine is.
 * Linux only (null elsewhere).
 */
export function cpuSpent() {
  const linux = process.platform === 'linux';
  const node = process.cpuUsage();
  const tree = linux ? treeCpuSeconds(process.pid) : 0;
  return {
    stop() {
      const used = process.cpuUsage(node);
      return {
        node_s: Math.round((used.user + used.system) / 1e4) / 100,
        total_s: linux ? Math.round((treeCpuSeconds(process.pid) - tree) * 100) / 100 : null,
      };
    },
  };
}

/** What the platform's rollup job did from now until `stop`: its runs and their mean time (it runs every 10 s, off the insert path). */
export function rollupRuns(store: unknown) {
  const job = (store as ClickHouseTimeSeriesStore | null)?.rollupJob ?? null;
  const at = job ? { ...job.runs } : null;
  return {
    stop: (): { rollup_runs?: number; rollup_ms_per_run?: number | null } => {
      if (!job || !at) return {};
      const runs = job.runs.count - at.count;
      return { rollup_runs: runs, rollup_ms_per_run: runs > 0 ? Math.round((job.runs.totalMs - at.totalMs) / runs) : null };
    },
  };
}
