import { describe, expect, it } from 'vitest';
import type { OtaTaskFile } from '@iot/contracts';
import type { EventStore, StoredEvent, SubscribeOptions } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { createOtaFileLookup } from './ota-files.ts';

const file: OtaTaskFile = { fileId: 'f1', name: 'fw.bin', fileType: 'upgrade', version: '2.0', size: 10, sha256: 'ab', storageKey: 't/f1' };

/** A read model that counts its reads and answers `answer` (what it holds now, possibly behind the log). */
function readModel() {
  const state = { reads: 0, answer: file as OtaTaskFile | null };
  const db = {
    async query() {
      state.reads += 1;
      const row = state.answer ? { file: state.answer, taskId: 'task1' } : null;
      return { rows: row ? [row] : [], rowCount: row ? 1 : 0 } as never;
    },
  } as unknown as Sql;
  return { state, db };
}

function eventLog() {
  let onEvents: SubscribeOptions['onEvents'] = async () => {};
  const store = {
    headPosition: async () => null,
    subscribe: (options: SubscribeOptions) => ((onEvents = options.onEvents), { stop: async () => {} }),
  } as unknown as EventStore;
  let n = 0;
  const append = (type: string, data: Record<string, unknown>) =>
    onEvents([
      {
        id: String(++n),
        streamName: 'x-t.1',
        version: 1,
        type,
        data,
        metadata: { tenantId: 't' },
        position: String(n),
        recordedAt: new Date(),
      } as StoredEvent,
    ]);
  return { store, append };
}

describe('the OTA file lookup', () => {
  it('reads a device part once, and refuses it from the end seen in the log though the read model is behind', async () => {
    const { state, db } = readModel();
    const log = eventLog();
    const lookup = createOtaFileLookup(db, log.store);
    await lookup.start();
    for (let i = 0; i < 5; i++) expect(await lookup.forTask('t', 'task1', 'd1')).toEqual(file);
    for (let i = 0; i < 5; i++) expect((await lookup.ofDevice('t', 'd1'))?.fileId).toBe('f1');
    expect(state.reads).toBe(2);

    await log.append('OtaDeviceSucceeded', { taskId: 'task1', deviceId: 'd1', version: '2.0' });
    // The read model has not seen it: still no file for d1, from the cache or from a read.
    expect(await lookup.forTask('t', 'task1', 'd1')).toBeNull();
    expect(await lookup.ofDevice('t', 'd1')).toBeNull();
    // Another device of the task still gets it.
    expect(await lookup.forTask('t', 'task1', 'd2')).toEqual(file);
  });

  it('refuses every device of a cancelled task, and a deleted file', async () => {
    const { db } = readModel();
    const log = eventLog();
    const lookup = createOtaFileLookup(db, log.store);
    await lookup.start();
    expect(await lookup.forTask('t', 'task1', 'd1')).toEqual(file);
    await log.append('OtaTaskCancelled', { taskId: 'task1' });
    expect([await lookup.forTask('t', 'task1', 'd1'), await lookup.forTask('t', 'task1', 'd2'), await lookup.ofDevice('t', 'd3')]).toEqual([
      null,
      null,
      null,
    ]);

    const otherLog = eventLog();
    const second = createOtaFileLookup(db, otherLog.store);
    await second.start();
    expect(await second.ofDevice('t', 'd1')).not.toBeNull();
    await otherLog.append('FileDeleted', { fileId: 'f1', storageKey: 't/f1' });
    expect(await second.ofDevice('t', 'd1')).toBeNull();
  });

  it('reads again after a newer offer to the device (a newer task may send another file)', async () => {
    const { state, db } = readModel();
    const log = eventLog();
    const lookup = createOtaFileLookup(db, log.store);
    await lookup.start();
    await lookup.ofDevice('t', 'd1');
    const newer = { ...file, fileId: 'f2' };
    state.answer = newer;
    expect((await lookup.ofDevice('t', 'd1'))?.fileId).toBe('f1');
    await log.append('OtaDeviceOffered', { taskId: 'task2', deviceId: 'd1' });
    expect((await lookup.ofDevice('t', 'd1'))?.fileId).toBe('f2');
  });
});
