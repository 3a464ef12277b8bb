import { createHash } from 'node:crypto';
import type { StoredFile } from '@iot/contracts';
import type { Dispatch, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import { handleCommand, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { fileDecider, fileStream } from '@iot/command/file/decide.ts';
import { createOtaTask } from '@iot/command/ota/handlers.ts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';

/** The demo firmware: 64 KB of bytes that are the same on every start. */
function demoFirmware(): Buffer {
  const bytes = Buffer.alloc(64 * 1024);
  let block = createHash('sha256').update('demo firmware 2.0').digest();
  for (let at = 0; at < bytes.length; at += block.length) {
    block.copy(bytes, at);
    block = createHash('sha256').update(block).digest();
  }
  return bytes;
}

/**
 * The demo tenant's OTA screens are not empty on a first `npm start`: an upgrade file (its bytes in the file store) and
 * one rollout of it to the twelve sensors, finished. It goes through the same commands as an operator and the devices:
 * the file recorded, the task created, its wave started and offered, and each sensor reporting its download and then
 * done with 2.0 (the rollout's workflow settles them and finishes the task). Idempotent: fixed keys, and every step is
 * a no-op on a stream that already holds it.
 */
export async function seedDemoOta(
  ports: { store: EventStore; lookups: Lookups; files: FileStore | null; dispatch: Dispatch },
  tenantId: string,
): Promise<void> {
  if (!ports.files) return;
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const fileId = newAggregateId({ tenantId, idempotencyKey: 'demo-file:firmware-2.0' });
  const storageKey = `${tenantId}/${fileId}`;
  const content = demoFirmware();
  const stored =
    (await ports.files.size(storageKey)) === content.length
      ? null
      : await ports.files.put(
          storageKey,
          (async function* () {
            yield content;
          })(),
        );
  const sha256 = stored?.sha256 ?? createHash('sha256').update(content).digest('hex');
  const fields = { name: 'sensor-fw-2.0.bin', fileType: 'upgrade' as const, extensionType: null, version: '2.0', declaration: '演示固件' };
  await handleCommand(
    ports.store,
    fileDecider,
    fileStream(tenantId, fileId),
    {
      type: 'RecordUploadedFile',
      file: { fileId, ...fields, size: content.length, sha256, storageKey, uploaderId: 'seed', uploader: 'seed' },
    },
    { ...seed, idempotencyKey: 'demo-file:firmware-2.0' },
  );
  const { declaration: _declaration, ...described } = fields;
  const file: StoredFile = { id: fileId, tenantId, ...described, size: content.length, sha256, storageKey };

  const deviceIds = Array.from({ length: 12 }, (_, i) =>
    newAggregateId({ tenantId, idempotencyKey: `demo-device:DEMO-TH-${String(i + 1).padStart(3, '0')}` }),
  );
  const taskContext = { ...seed, idempotencyKey: 'demo-ota-task:sensors-2.0' };
  const taskId = newAggregateId(taskContext);
  // Created on an earlier start: the same key finds the task's event and records nothing.
  await createOtaTask(
    ports,
    taskContext,
    {
      name: '温湿度传感器升级 2.0',
      fileId,
      target: { kind: 'devices', deviceIds },
      waves: { size: 12, pauseSec: 0, failurePercent: 50 },
    },
    async () => file,
  );
  const step = (key: string): DispatchMetadata => ({
    tenantId,
    actor: { kind: 'system', id: 'seed' },
    correlationId: `demo-ota:${taskId}`,
    causationId: null,
    idempotencyKey: `demo-ota:${key}`,
  });
  await ports.dispatch({ type: 'StartNextOtaWave', taskId, at: new Date().toISOString() }, step('wave'));
  await ports.dispatch({ type: 'OfferOtaWave', taskId, wave: 1 }, step('offer'));
  for (const deviceId of deviceIds) {
    const device = (key: string): DispatchMetadata => ({ ...step(`${deviceId}:${key}`), actor: { kind: 'device', id: deviceId } });
    await ports.dispatch(
      { type: 'ReportOtaProgress', deviceId, taskId, report: { stage: 'downloading', percent: 100 } },
      device('downloaded'),
    );
    await ports.dispatch({ type: 'ReportOtaProgress', deviceId, taskId, report: { done: true, version: '2.0' } }, device('done'));
  }
}
