import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Stops } from './stops.ts';
import { sinceLastTick, startTicker } from './ticker.ts';

const logger = pino({ level: 'silent' });

describe('startTicker', () => {
  afterEach(() => vi.useRealTimers());

  it('never overlaps a slow run, goes on after a failed one, and stops after the run under way', async () => {
    vi.useFakeTimers();
    const stops: Stops = [];
    let active = 0;
    let most = 0;
    let runs = 0;
    let release: () => void = () => {};
    const run = async () => {
      runs++;
      active++;
      most = Math.max(most, active);
      if (runs === 1) throw (active--, new Error('first run fails'));
      await new Promise<void>((resolve) => (release = resolve));
      active--;
    };
    startTicker('test ticker', 1_000, run, logger, stops);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(2);

    let stopped = false;
    const stopping = stops[0]!().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect({ runs, most }).toEqual({ runs: 2, most: 1 });
  });
});

describe('sinceLastTick', () => {
  it('asks again from the last successful tick when a tick fails', async () => {
    const windows: Array<[Date, Date]> = [];
    let fail = true;
    const run = sinceLastTick(async (previous, now) => {
      windows.push([previous, now]);
      if (fail) throw new Error('window failed');
    });
    await expect(run()).rejects.toThrow('window failed');
    fail = false;
    await run();
    await run();
    expect(windows[1]![0]).toBe(windows[0]![0]);
    expect(windows[2]![0]).toBe(windows[1]![1]);
  });
});
