import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { DeviceLinkPort } from '@iot/contracts/ports/device-link.ts';
import { createOtaTask, otaDispatchers } from '@iot/command/ota/handlers.ts';
import { otaDeviceStream, otaTaskStream } from '@iot/command/ota/decide.ts';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import type { EventStore } from '@iot/infra/event-store/port.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { otaFileForDevice, otaFileOfDevice } from '@iot/projections/ota/read.ts';
import { otaTasksProjection } from '@iot/projections/ota/tasks.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

/**
 * A device answers its offer before the rollout's read model has seen the offer (issue 21): ThingsBoard's OTA client
 * reports `fw_state` at once and names no task, and a device may drop off right after its offer. The interleaving is
 * forced: the read model is given the task's creation only, while the offer is recorded and delivered. Neither the
 * report nor the pause may be lost.
 */
const TENANT = 't1';
let db: TestDatabase;
let store: EventStore;

const step = (key: string): DispatchMetadata => ({
  tenantId: TENANT,
  actor: { kind: 'system', id: 'test' },
  correlationId: key,
  causationId: null,
  idempotencyKey: key,
});

/** The read model as far as the projection got: the task's own stream only, not its devices' offers. */
async function projectTaskStream(taskId: string) {
  for (const event of await store.readStream(otaTaskStream(TENANT, taskId))) await otaTasksProjection.apply(db.pool, event);
}

/** A one-device rollout whose device has been offered and sent the offer, with the read model left behind. */
async function offeredBehindTheReadModel() {
  const device = { deviceId: randomUUID(), sn: `EARLY-${randomUUID().slice(0, 8)}` };
  const delivered: string[] = [];
  const link: DeviceLinkPort = {
    reachable: async () => true,
    send: async (_device, message) => (delivered.push(message.messageId), null),
  };
  // The device read model is not part of this test: the target's devices are given as its lookup would answer.
  const lookups = { ...createLookups(db.pool), devicesForRollout: async () => [{ ...device, version: '1.0' }] };
  const ports = { store, lookups, link };
  const taskId = await createOtaTask(
    ports,
    { tenantId: TENANT, actor: { kind: 'user', id: 'test' } },
    {
      name: 'early',
      fileId: 'fw',
      target: { kind: 'devices', deviceIds: [device.deviceId] },
      waves: { size: 10, pauseSec: 0, failurePercent: 50 },
    },
    async () => ({
      id: 'fw',
      tenantId: TENANT,
      name: 'fw.bin',
      size: 1024,
      sha256: 'c'.repeat(64),
      fileType: 'upgrade',
      extensionType: null,
      version: '2.0',
      storageKey: `${TENANT}/fw`,
    }),
  );
  const sut = otaDispatchers(ports);
  await projectTaskStream(taskId);
  await sut.StartNextOtaWave({ type: 'StartNextOtaWave', taskId, at: new Date().toISOString() }, step(`start:${taskId}`));
  await sut.OfferOtaWave({ type: 'OfferOtaWave', taskId, wave: 1 }, step(`offer:${taskId}`));
  await sut.DeliverOtaOffer({ type: 'DeliverOtaOffer', taskId, deviceId: device.deviceId }, step(`deliver:${taskId}`));
  expect(delivered).toEqual([`ota-${taskId}`]);
  const row = await db.pool.query<{ status: string }>('select status from rm_ota_devices where task_id = $1', [taskId]);
  expect(row.rows.map((r) => r.status)).toEqual(['nonExecution']);
  return { sut, taskId, deviceId: device.deviceId };
}

const deviceEvents = async (taskId: string, deviceId: string) =>
  (await store.readStream(otaDeviceStream(TENANT, taskId, deviceId))).map((e) => ({ type: e.type, data: e.data }));

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(otaTasksProjection.schema);
  store = await createPostgresEventStore(db.pool);
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe('a device that answers its offer before the read model has seen it', () => {
  it('has its ThingsBoard report, which names no task, recorded on the rollout it was offered', async () => {
    const { sut, taskId, deviceId } = await offeredBehindTheReadModel();

    await sut.ReportOtaProgress(
      { type: 'ReportOtaProgress', deviceId, taskId: null, report: { stage: 'downloading', percent: null } },
      step(`report:${taskId}`),
    );

    expect((await deviceEvents(taskId, deviceId)).slice(1)).toEqual([
      { type: 'OtaDeviceProgressed', data: { taskId, deviceId, stage: 'downloading', percent: null } },
    ]);
  });

  it('is paused when it goes offline right after its offer (so that its return resumes it)', async () => {
    const { sut, taskId, deviceId } = await offeredBehindTheReadModel();

    await sut.OtaDevicePresence({ type: 'OtaDevicePresence', deviceId, online: false }, step(`offline:${taskId}`));

    expect((await deviceEvents(taskId, deviceId)).map((e) => e.type)).toEqual(['OtaDeviceOffered', 'OtaDevicePaused']);
  });

  it('is served its file, over its signed link or in ThingsBoard chunks, as soon as it asks', async () => {
    const { taskId, deviceId } = await offeredBehindTheReadModel();

    expect((await otaFileForDevice(db.pool, TENANT, taskId, deviceId))?.fileId).toBe('fw');
    expect((await otaFileOfDevice(db.pool, TENANT, deviceId))?.fileId).toBe('fw');
  });
});
