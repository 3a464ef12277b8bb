import { loadavg } from 'node:os';

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
