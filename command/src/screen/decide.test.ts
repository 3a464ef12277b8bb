import { describe, expect, it } from 'vitest';
import type { ScreenEvent, ScreenWidget } from '@iot/contracts';
import { SCREEN_SHARE_LIMIT } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { screenDecider } from './decide.ts';

const gauge: ScreenWidget = {
  id: 'w1',
  kind: 'gauge',
  x: 0,
  y: 0,
  w: 6,
  h: 6,
  title: 'Pressure',
  binding: { source: 'device', deviceId: 'd1', variable: 'pressure' },
  options: { min: 0, max: 10 },
};
const created: ScreenEvent = { type: 'ScreenCreated', data: { screenId: 's1', name: 'Plant', widgets: [gauge] } };
const deleted: ScreenEvent = { type: 'ScreenDeleted', data: { screenId: 's1' } };
const now = '2026-11-26T00:00:00.000Z';
const shared = (shareId: string, expiresAt = '2026-11-27T00:00:00.000Z', stationId: string | null = null): ScreenEvent => ({
  type: 'ScreenShared',
  data: { screenId: 's1', shareId, tokenHash: 'h', expiresAt, stationId },
});
const { given } = scenario(screenDecider);

describe('screen decider', () => {
  it('creates a screen once', () => {
    expect(given([]).when({ type: 'CreateScreen', screenId: 's1', name: 'Plant', widgets: [gauge] })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'CreateScreen', screenId: 's1', name: 'Plant', widgets: [] }))).toBe('CONFLICT');
  });

  it('renames and saves a moved layout; the same name or layout again appends nothing', () => {
    expect(given([created]).when({ type: 'RenameScreen', screenId: 's1', name: 'Plant' })).toEqual([]);
    expect(given([created]).when({ type: 'RenameScreen', screenId: 's1', name: 'Hall' })).toEqual([
      { type: 'ScreenRenamed', data: { screenId: 's1', name: 'Hall' } },
    ]);
    expect(given([created]).when({ type: 'SaveScreenLayout', screenId: 's1', widgets: [{ ...gauge }] })).toEqual([]);
    const moved = [{ ...gauge, x: 12 }];
    expect(given([created]).when({ type: 'SaveScreenLayout', screenId: 's1', widgets: moved })).toEqual([
      { type: 'ScreenLayoutSaved', data: { screenId: 's1', widgets: moved } },
    ]);
  });

  it('refuses to change a screen that does not exist or was deleted', () => {
    expect(codeOf(() => given([]).when({ type: 'SaveScreenLayout', screenId: 's1', widgets: [] }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created, deleted]).when({ type: 'DeleteScreen', screenId: 's1' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created, deleted]).when({ type: 'RenameScreen', screenId: 's1', name: 'x' }))).toBe('NOT_FOUND');
  });

  it('shares by links up to the limit of live ones, and revokes a link once', () => {
    const share = {
      type: 'ShareScreen' as const,
      screenId: 's1',
      shareId: 'l1',
      tokenHash: 'h',
      expiresAt: '2026-11-27T00:00:00.000Z',
      stationId: null,
      now,
    };
    expect(given([created]).when(share)).toEqual([shared('l1')]);
    // A sharer narrowed to a station shares the screen narrowed to it.
    expect(given([created]).when({ ...share, stationId: 'g-hall' })).toEqual([shared('l1', undefined, 'g-hall')]);
    expect(codeOf(() => given([]).when(share))).toBe('NOT_FOUND');
    const full = Array.from({ length: SCREEN_SHARE_LIMIT }, (_, i) => shared(`l${i + 2}`));
    expect(codeOf(() => given([created, ...full]).when(share))).toBe('SCREEN_SHARE_LIMIT');
    // Expired links do not count.
    const old = full.map((e, i) => shared(`l${i + 2}`, i === 0 ? '2026-11-25T00:00:00.000Z' : '2026-11-27T00:00:00.000Z'));
    expect(given([created, ...old]).when(share)).toEqual([shared('l1')]);
    const revoke = { type: 'RevokeScreenShare' as const, screenId: 's1', shareId: 'l1' };
    const revoked: ScreenEvent = { type: 'ScreenShareRevoked', data: { screenId: 's1', shareId: 'l1' } };
    expect(given([created, shared('l1')]).when(revoke)).toEqual([revoked]);
    expect(codeOf(() => given([created, shared('l1'), revoked]).when(revoke))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created, shared('l1'), deleted]).when(revoke))).toBe('NOT_FOUND');
  });
});
