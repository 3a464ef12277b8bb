import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import type { CameraEvent, CameraFields } from './camera.ts';
import { cameraDecider } from './decide.ts';

const gate: CameraFields = {
  name: 'North gate',
  streamUrl: 'https://gw.example.com/live/north.m3u8',
  groupId: 'g1',
  deviceId: null,
  location: 'Gate 1',
  remark: null,
};
const registered: CameraEvent = { type: 'CameraRegistered', data: { cameraId: 'c1', ...gate } };
const deleted: CameraEvent = { type: 'CameraDeleted', data: { cameraId: 'c1' } };
const { given } = scenario(cameraDecider);

describe('camera decider', () => {
  it('registers a camera once', () => {
    expect(given([]).when({ type: 'RegisterCamera', cameraId: 'c1', fields: gate })).toEqual([registered]);
    expect(codeOf(() => given([registered]).when({ type: 'RegisterCamera', cameraId: 'c1', fields: gate }))).toBe('CONFLICT');
  });

  it('edits only what changed: the same fields again append nothing', () => {
    expect(given([registered]).when({ type: 'UpdateCamera', cameraId: 'c1', fields: { ...gate } })).toEqual([]);
    const moved = { ...gate, streamUrl: 'https://gw.example.com/live/north-hd.m3u8', deviceId: 'd1' };
    expect(given([registered]).when({ type: 'UpdateCamera', cameraId: 'c1', fields: moved })).toEqual([
      { type: 'CameraUpdated', data: { cameraId: 'c1', ...moved } },
    ]);
  });

  it('deletes once; nothing is done to a camera deleted or never registered', () => {
    expect(given([registered]).when({ type: 'DeleteCamera', cameraId: 'c1' })).toEqual([deleted]);
    expect(codeOf(() => given([registered, deleted]).when({ type: 'DeleteCamera', cameraId: 'c1' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([registered, deleted]).when({ type: 'UpdateCamera', cameraId: 'c1', fields: gate }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([]).when({ type: 'UpdateCamera', cameraId: 'c1', fields: gate }))).toBe('NOT_FOUND');
  });
});
