/**
 * Latency histograms of the benchmarks: HDR histograms (hdr-histogram-js) in microseconds, so that percentiles
 * hold to 3 significant digits at any rate, and histograms of several processes add up exactly.
 */
import * as hdr from 'hdr-histogram-js';

/** Up to 10 minutes, in microseconds. */
const HIGHEST_US = 600_000_000;

export const histogram = (): hdr.Histogram =>
  hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3 });

/** Records `ms` milliseconds (`count` times), clamped to what the histogram holds. */
export const record = (h: hdr.Histogram, ms: number, count = 1): void =>
  h.recordValueWithCount(Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000))), count);

/** The sum of histograms encoded by `hdr.encodeIntoCompressedBase64` (one per generator process). */
export function merged(encoded: string[]): hdr.Histogram {
  const total = histogram();
  for (const e of encoded) total.add(hdr.decodeFromCompressedBase64(e));
  return total;
}

export const encode = (h: hdr.Histogram): string => hdr.encodeIntoCompressedBase64(h);

/** The value at `percentile` (0-100) in milliseconds with one decimal; 0 for an empty histogram. */
export const percentileMs = (h: hdr.Histogram, percentile: number): number =>
  h.totalCount === 0 ? 0 : Math.round(h.getValueAtPercentile(percentile) / 100) / 10;
