import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlarmRaisedData, CameraEvent, CameraFields } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { camerasProjection } from './cameras.ts';
import { cameraById, camerasPage, snapshotOfAlarm } from './read.ts';

const fields: CameraFields = {
  name: 'gate',
  streamUrl: 'https://gw.example.com/live/gate.m3u8',
  groupId: 'g1',
  deviceId: null,
  location: null,
  remark: null,
};
const raised = (alarmId: string, cameraId: string | null | undefined): AlarmRaisedData => ({
  alarmId,
  ruleId: 'r1',
  ruleName: 'hot',
  deviceId: 'd1',
  variable: 'temperature',
  type: 'device',
  category: null,
  mode: 'crossUpper',
  level: 2,
  trigger: 'first',
  threshold: '> 5',
  value: 9,
  text: null,
  at: '2026-05-03T14:02:00.000Z',
  faultFlag: false,
  cause: null,
  suggestion: null,
  push: 'firstTime',
  pushIntervalMin: null,
  ...(cameraId === undefined ? {} : { cameraId }),
});

let sut: ReadModel;
const camera = (tenantId: string, cameraId: string, more: Partial<CameraFields>, at?: string) =>
  sut.given(camerasProjection, { type: 'CameraRegistered', data: { cameraId, ...fields, name: cameraId, ...more } }, { tenantId, at });

beforeAll(async () => {
  sut = await readModelOf(camerasProjection);
  await camera('t1', 'Gate', {}, '2026-01-01T00:00:00Z');
  await camera('t1', 'hall', { groupId: 'g2', deviceId: 'd7' }, '2026-01-02T00:00:00Z');
  await camera('t1', 'gone', {}, '2026-01-03T00:00:00Z');
  await camera('t2', 'theirs', {}, '2026-01-04T00:00:00Z');
  // The alarm of t1 names Gate while its stream is the first one; the edit after it leaves the snapshot be.
  await sut.given(camerasProjection, { type: 'AlarmRaised', data: raised('a1', 'Gate') }, { tenantId: 't1' });
  const events: Array<[string, CameraEvent | { type: 'AlarmRaised'; data: AlarmRaisedData }]> = [
    ['t1', { type: 'CameraUpdated', data: { cameraId: 'Gate', ...fields, name: 'Gate', streamUrl: 'https://gw.example.com/hd.m3u8' } }],
    ['t1', { type: 'CameraDeleted', data: { cameraId: 'gone' } }],
    ['t1', { type: 'AlarmRaised', data: raised('a2', null) }],
    ['t1', { type: 'AlarmRaised', data: raised('a3', undefined) }],
    ['t1', { type: 'AlarmRaised', data: raised('a4', 'gone') }],
  ];
  for (const [tenantId, event] of events) await sut.given(camerasProjection, event, { tenantId });
});
afterAll(async () => sut?.drop());

describe('the cameras read module', () => {
  it('finds a camera of its own tenant only, as last edited', async () => {
    expect(await cameraById(sut.db, 't1', 'Gate')).toMatchObject({ streamUrl: 'https://gw.example.com/hd.m3u8', groupId: 'g1' });
    expect(await cameraById(sut.db, 't2', 'Gate')).toBeNull();
    expect(await cameraById(sut.db, 't1', 'gone')).toBeNull();
  });

  it('pages a tenant’s cameras filtered by name, groups and device', async () => {
    const ids = async (filter: Parameters<typeof camerasPage>[2]) =>
      (await camerasPage(sut.db, 't1', filter, { page: 1, pageSize: 20, order: 'asc', sort: 'createTime' })).rows.map((c) => c.id);
    expect(await ids({})).toEqual(['Gate', 'hall']);
    expect(await ids({ name: 'GAT' })).toEqual(['Gate']);
    expect(await ids({ groupIds: ['g2', 'g9'] })).toEqual(['hall']);
    expect(await ids({ deviceId: 'd7' })).toEqual(['hall']);
    expect(await ids({ groupIds: [] })).toEqual([]);
  });

  it('keeps the snapshot of an alarm raised by a rule with a camera: the stream as it was, at the alarm’s moment', async () => {
    expect(await snapshotOfAlarm(sut.db, 't1', 'a1')).toEqual({
      alarmId: 'a1',
      cameraId: 'Gate',
      cameraName: 'Gate',
      streamUrl: 'https://gw.example.com/live/gate.m3u8',
      at: new Date('2026-05-03T14:02:00.000Z'),
    });
    expect(await snapshotOfAlarm(sut.db, 't2', 'a1')).toBeNull();
    expect(await snapshotOfAlarm(sut.db, 't1', 'a2')).toBeNull();
    expect(await snapshotOfAlarm(sut.db, 't1', 'a3')).toBeNull();
    // A camera deleted before the alarm: the reference keeps its id, without a stream.
    expect(await snapshotOfAlarm(sut.db, 't1', 'a4')).toMatchObject({ cameraId: 'gone', cameraName: null, streamUrl: null });
  });
});
