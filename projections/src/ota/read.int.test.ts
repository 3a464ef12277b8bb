import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OtaDeviceEvent, OtaTaskEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { otaTasksProjection } from './tasks.ts';
import { otaDevicesPage } from './read.ts';

const file = { fileId: 'f1', name: 'fw.bin', fileType: 'upgrade', version: '2.0', size: 1024, sha256: 'ab', storageKey: 't1/f1' } as const;
let sut: ReadModel;
const given = (event: OtaTaskEvent | OtaDeviceEvent) => sut.given(otaTasksProjection, event, { tenantId: 't1' });

beforeAll(async () => {
  sut = await readModelOf(otaTasksProjection);
  const devices = ['d1', 'd2', 'd3'].map((deviceId, i) => ({ deviceId, sn: `SN-${i + 1}`, fromVersion: '1.0' }));
  await given({
    type: 'OtaTaskCreated',
    data: {
      taskId: 'task',
      name: 'to 2.0',
      file,
      target: { kind: 'devices', deviceIds: devices.map((d) => d.deviceId) },
      waves: { size: 10, pauseSec: 0, failurePercent: 50 },
      devices,
    },
  });
  for (const { deviceId, sn } of devices)
    await given({ type: 'OtaDeviceOffered', data: { taskId: 'task', deviceId, sn, wave: 1, file, fromVersion: '1.0' } });
  await given({ type: 'OtaDeviceProgressed', data: { taskId: 'task', deviceId: 'd1', stage: 'downloading', percent: 100 } });
  await given({ type: 'OtaDeviceSucceeded', data: { taskId: 'task', deviceId: 'd1', version: '2.0' } });
  await given({ type: 'OtaDeviceProgressed', data: { taskId: 'task', deviceId: 'd2', stage: 'installing', percent: null } });
  await given({ type: 'OtaDeviceFailed', data: { taskId: 'task', deviceId: 'd2', reason: 'checksum mismatch' } });
  await given({ type: 'OtaDeviceProgressed', data: { taskId: 'task', deviceId: 'd3', stage: 'downloading', percent: 40 } });
});
afterAll(async () => sut?.drop());

describe('the OTA devices read module', () => {
  it('shows a settled device where it ended (done, failed), not the last stage it reported', async () => {
    const page = await otaDevicesPage(sut.db, 't1', { taskId: 'task' }, { page: 1, pageSize: 10, order: 'asc' });
    expect(page.rows.map((d) => [d.sn, d.status, d.stage, d.percent])).toEqual([
      ['SN-1', 'success', 'done', 100],
      ['SN-2', 'fail', 'failed', null],
      ['SN-3', 'executing', 'downloading', 40],
    ]);
  });
});
