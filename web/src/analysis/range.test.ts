import { describe, expect, it } from 'vitest';
import { daysOf, durationText, instantsOf, lastDays } from './range.ts';

describe('statistics ranges', () => {
  it('takes whole local days, the last one included', () => {
    const r = instantsOf({ from: '2026-01-01', to: '2026-01-01' });
    expect(Date.parse(r.to) - Date.parse(r.from)).toBe(86_400_000);
    expect(lastDays(7, new Date(2026, 0, 10, 15))).toEqual({ from: '2026-01-04', to: '2026-01-10' });
    expect(daysOf({ from: '2026-02-27', to: '2026-03-01' })).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });
  it('writes durations the way an operator reads them', () => {
    expect([durationText(45), durationText(200), durationText(7500), durationText(3 * 86400 + 7200), durationText(null)]).toEqual([
      '45s',
      '3m 20s',
      '2h 5m',
      '3d 2h',
      '-',
    ]);
    expect([durationText(45, 'zh'), durationText(200, 'zh'), durationText(7500, 'zh'), durationText(3 * 86400 + 7200, 'zh')]).toEqual([
      '45秒',
      '3分20秒',
      '2小时5分',
      '3天2小时',
    ]);
  });
});
