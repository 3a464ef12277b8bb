import { describe, expect, it } from 'vitest';
import { nextStatRun } from './tasks.ts';

describe('the next run of a statistic task', () => {
  it('is the end of the window that holds now, in the task’s zone', () => {
    const at = new Date('2026-03-02T03:17:42Z');
    expect(nextStatRun('10m', at, 'UTC').toISOString()).toBe('2026-03-02T03:20:00.000Z');
    expect(nextStatRun('1h', at, 'UTC').toISOString()).toBe('2026-03-02T04:00:00.000Z');
    // Shanghai is UTC+8: its day ends at 16:00 UTC.
    expect(nextStatRun('1d', at, 'Asia/Shanghai').toISOString()).toBe('2026-03-02T16:00:00.000Z');
    // A week from Monday: 2 March 2026 is a Monday, the next one 9 March.
    expect(nextStatRun('1w', at, 'UTC').toISOString()).toBe('2026-03-09T00:00:00.000Z');
    expect(nextStatRun('1M', at, 'UTC').toISOString()).toBe('2026-04-01T00:00:00.000Z');
    // Kathmandu is UTC+5:45: 03:17 UTC is 09:02 there, and its 10:00 is 04:15 UTC.
    expect(nextStatRun('1h', at, 'Asia/Kathmandu').toISOString()).toBe('2026-03-02T04:15:00.000Z');
  });
});
