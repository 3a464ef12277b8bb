import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileEvent, FileUploadFields } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { filesProjection } from './files.ts';
import { fileById, fileBytesOfTenant, filesPage } from './read.ts';
import { fileInUse } from './in-use.ts';
import { otaTasksProjection } from '../ota/tasks.ts';

const fields: FileUploadFields = { name: 'fw.bin', fileType: 'upgrade', extensionType: 'CLI', version: '1.0.0', declaration: null };
let sut: ReadModel;
async function upload(tenantId: string, fileId: string, more: Partial<FileUploadFields>, size: number, at: string) {
  const event: FileEvent = {
    type: 'FileUploaded',
    data: {
      fileId,
      ...fields,
      ...more,
      size,
      sha256: fileId.padEnd(64, '0'),
      storageKey: `${tenantId}/${fileId}`,
      uploaderId: 'u1',
      uploader: tenantId === 't1' ? 'Operator_1' : 'other',
    },
  };
  await sut.given(filesProjection, event, { tenantId, at });
}

beforeAll(async () => {
  sut = await readModelOf(filesProjection, otaTasksProjection);
  await upload('t1', 'a', { name: 'gateway_fw.bin' }, 3 * 1024 * 1024, '2026-01-01T00:00:00Z');
  await upload('t1', 'b', { name: 'config.json', fileType: 'configuration', extensionType: 'OSDT' }, 2048, '2026-01-02T00:00:00Z');
  await upload('t1', 'gone', {}, 1000, '2026-01-03T00:00:00Z');
  await upload('t2', 'theirs', { name: 'gateway_fw.bin' }, 5000, '2026-01-04T00:00:00Z');
  await sut.given(filesProjection, { type: 'FileDeleted', data: { fileId: 'gone', storageKey: 't1/gone' } } satisfies FileEvent, {
    tenantId: 't1',
  });
  // The same upload recorded twice (a replay) leaves one row.
  await upload('t1', 'a', { name: 'gateway_fw.bin' }, 3 * 1024 * 1024, '2026-01-01T00:00:00Z');
});
afterAll(async () => sut?.drop());

describe('the files read module', () => {
  it('finds a file of its own tenant only, as stored', async () => {
    expect(await fileById(sut.db, 't1', 'a')).toMatchObject({
      name: 'gateway_fw.bin',
      size: 3 * 1024 * 1024,
      storageKey: 't1/a',
      extensionType: 'CLI',
      uploader: 'Operator_1',
    });
    expect(await fileById(sut.db, 't2', 'a')).toBeNull();
    expect(await fileById(sut.db, 't1', 'gone')).toBeNull();
  });

  it('pages a tenant’s files by name (a literal _ or %), type, extension type and uploader, newest first', async () => {
    const page = { page: 1, pageSize: 20, order: 'desc' } as const;
    expect((await filesPage(sut.db, 't1', {}, page)).rows.map((r) => r.id)).toEqual(['b', 'a']);
    expect((await filesPage(sut.db, 't1', { name: 'Y_F' }, page)).rows.map((r) => r.id)).toEqual(['a']);
    expect((await filesPage(sut.db, 't1', { name: '%' }, page)).total).toBe(0);
    expect((await filesPage(sut.db, 't1', { fileType: 'configuration' }, page)).rows.map((r) => r.id)).toEqual(['b']);
    expect((await filesPage(sut.db, 't1', { extensionType: 'CLI' }, page)).rows.map((r) => r.id)).toEqual(['a']);
    expect((await filesPage(sut.db, 't1', { uploader: 'operator' }, page)).total).toBe(2);
    expect((await filesPage(sut.db, 't1', {}, { ...page, sort: 'size', order: 'asc' })).rows.map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('sums the bytes a tenant keeps, and no task holds a file yet', async () => {
    expect(await fileBytesOfTenant(sut.db, 't1')).toBe(3 * 1024 * 1024 + 2048);
    expect(await fileBytesOfTenant(sut.db, 't3')).toBe(0);
    expect(await fileInUse(sut.db, 't1', 'a')).toBe(false);
  });
});
