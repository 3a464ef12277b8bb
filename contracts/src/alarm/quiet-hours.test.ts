import { describe, expect, it } from 'vitest';
import { inQuietHours, notifySettingsBody } from './model.ts';

describe('quiet hours', () => {
  const night = { start: '22:00', end: '07:00', minLevel: 4, timeZone: 'Asia/Shanghai' };

  it('holds a window across midnight in the tenant time zone', () => {
    // 23:30 and 06:59 in Shanghai (UTC+8) are inside; 07:00 and 12:00 are not.
    expect(inQuietHours(night, new Date('2026-05-03T15:30:00Z'))).toBe(true);
    expect(inQuietHours(night, new Date('2026-05-03T22:59:00Z'))).toBe(true);
    expect(inQuietHours(night, new Date('2026-05-03T23:00:00Z'))).toBe(false);
    expect(inQuietHours(night, new Date('2026-05-03T04:00:00Z'))).toBe(false);
  });

  it('holds a window within one day, and none when start equals end', () => {
    const lunch = { ...night, start: '12:00', end: '13:30', timeZone: 'UTC' };
    expect(inQuietHours(lunch, new Date('2026-05-03T12:00:00Z'))).toBe(true);
    expect(inQuietHours(lunch, new Date('2026-05-03T13:30:00Z'))).toBe(false);
    expect(inQuietHours(lunch, new Date('2026-05-03T11:59:00Z'))).toBe(false);
    expect(inQuietHours({ ...lunch, end: '12:00' }, new Date('2026-05-03T12:00:00Z'))).toBe(false);
  });

  it('refuses a time that is not HH:MM and an unknown time zone', () => {
    expect(notifySettingsBody.safeParse({ quietHours: { ...night, start: '7:00' } }).success).toBe(false);
    expect(notifySettingsBody.safeParse({ quietHours: { ...night, timeZone: 'Nowhere/City' } }).success).toBe(false);
    expect(notifySettingsBody.safeParse({ quietHours: night }).success).toBe(true);
  });
});
