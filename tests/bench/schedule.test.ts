import { describe, expect, it } from 'vitest';
import { RateSchedule } from './schedule.ts';

describe('RateSchedule', () => {
  it('spreads a step evenly over the processes: every message once, at its time, whatever the lanes', () => {
    const total = 1003;
    const rate = 2000; // a message every 0.5 ms
    const lanes = [0, 1, 2].map((lane) => new RateSchedule(10_000, rate, total, lane, 3));
    expect(lanes.map((s) => s.count)).toEqual([335, 334, 334]);
    const times = lanes.flatMap((s) => Array.from({ length: s.count }, (_, k) => s.dueAt(k))).sort((a, b) => a - b);
    expect(times).toHaveLength(total);
    times.forEach((t, g) => expect(t).toBeCloseTo(10_000 + g * 0.5, 9));
  });

  it('is open loop: what is due depends on the clock only, counting each message at its due time', () => {
    const s = new RateSchedule(1_000, 1000, 5000, 1, 2); // lane 1 of 2: messages 1, 3, 5… due at 1001, 1003… ms
    expect(s.dueBy(999)).toBe(0);
    expect(s.dueBy(1000.999)).toBe(0);
    expect(s.dueBy(1001)).toBe(1);
    expect(s.dueBy(1002.5)).toBe(1);
    expect(s.dueBy(1003)).toBe(2);
    expect(s.dueBy(2000)).toBe(500); // one second: 1000 messages offered, half of them in this lane
    expect(s.dueBy(1e12)).toBe(2500);
    expect(s.endAt).toBe(1000 + 4999);
    for (let k = 0; k < s.count; k += 97) {
      expect(s.dueBy(s.dueAt(k))).toBe(k + 1);
      expect(s.dueBy(s.dueAt(k) - 1e-6)).toBe(k);
    }
  });

  it('refuses a rate that is not positive and a lane outside the processes', () => {
    expect(() => new RateSchedule(0, 0, 10)).toThrow(RangeError);
    expect(() => new RateSchedule(0, 10, 10, 2, 2)).toThrow(RangeError);
    expect(new RateSchedule(0, 10, 1, 1, 2).count).toBe(0);
  });
});
