import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileStore as TusFileStore } from '@tus/file-store';
import { Upload } from '@tus/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '@iot/contracts';
import { reserveUpload, uploadReservationsSchema } from '@iot/command/file/quota.ts';
import { sweepAbandonedUploads } from '@iot/infra/wiring/files.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { waitFor } from '../harness/process.ts';

/**
 * The per-tenant quota under concurrent uploads (issue 21): an upload reserves its length when it is created, under
 * the tenant's lock, so two large uploads started together cannot both pass; an abandoned upload is swept, its parts
 * and its reservation with it.
 */
const MB = 1024 * 1024;
let db: TestDatabase;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(uploadReservationsSchema);
  dir = await mkdtemp(path.join(os.tmpdir(), 'dc-quota-'));
});
afterAll(async () => {
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

const refusedCode = (r: PromiseSettledResult<void>) =>
  r.status === 'rejected' ? (r.reason instanceof DomainError ? r.reason.code : String(r.reason)) : 'reserved';

describe('upload reservations against the quota', () => {
  it('lets only one of two large uploads started together pass, even when both read the stored bytes at once', async () => {
    // Both requests are held after reading what is stored until the other has read it too, or waits for the lock.
    let reads = 0;
    const waitingForLock = async () =>
      (await db.pool.query(`select 1 from pg_locks where locktype = 'advisory' and not granted`)).rowCount > 0;
    const storedBytes = async () => {
      reads++;
      await waitFor('both uploads past their read, or one held at the lock', async () => reads === 2 || (await waitingForLock()));
      return 1 * MB;
    };
    const quota = { tenantId: 'alpha', bytes: 1.5 * MB, quotaBytes: 3 * MB };
    const results = await Promise.allSettled([
      reserveUpload(db.pool, storedBytes, { ...quota, uploadId: 'first' }),
      reserveUpload(db.pool, storedBytes, { ...quota, uploadId: 'second' }),
    ]);
    expect(results.map(refusedCode).sort()).toEqual(['FILE_QUOTA_EXCEEDED', 'reserved']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as DomainError).details).toEqual({ quotaMb: '3.00', usedMb: '2.50' });

    // Another tenant's reservations are its own.
    await reserveUpload(db.pool, async () => 0, { tenantId: 'bravo', uploadId: 'theirs', bytes: 3 * MB, quotaBytes: 3 * MB });
  });

  it('sweeps an upload that received nothing for the expiry: its parts and its reservation go', async () => {
    const datastore = new TusFileStore({ directory: dir });
    await datastore.create(new Upload({ id: 'abandoned', size: 2 * MB, offset: 0, metadata: {} }));
    await reserveUpload(db.pool, async () => 0, { tenantId: 'charlie', uploadId: 'abandoned', bytes: 2 * MB, quotaBytes: 3 * MB });
    const full = { tenantId: 'charlie', uploadId: 'next', bytes: 2 * MB, quotaBytes: 3 * MB };
    await expect(reserveUpload(db.pool, async () => 0, full)).rejects.toThrow('FILE_QUOTA_EXCEEDED');

    const day = 24 * 3_600_000;
    // Not yet abandoned: nothing goes.
    expect(await sweepAbandonedUploads(db.pool, datastore, day, new Date(Date.now() + day / 2))).toBe(0);
    const swept = await sweepAbandonedUploads(db.pool, datastore, day, new Date(Date.now() + day + 60_000));
    // The first test's reservations are as old: they go too.
    expect(swept).toBe(3);
    await expect(datastore.getUpload('abandoned')).rejects.toBeTruthy();
    await reserveUpload(db.pool, async () => 0, full);
  });
});
