import { DomainError, sizeInMb } from '@iot/contracts';
import type { SqlPool } from '@iot/contracts/ports/sql.ts';

/**
 * Bytes promised to uploads in progress, per tenant: an upload reserves its declared length when it is created, so
 * that two large uploads started together cannot both pass the quota; the reservation ends when the file is
 * recorded (its bytes then count among the stored files), when the upload is terminated, or when it is abandoned.
 */
export const uploadReservationsSchema = `
create table file_upload_reservations (
  upload_id text primary key,
  tenant_id text not null,
  bytes bigint not null,
  reserved_at timestamptz not null default now(),
  touched_at timestamptz not null default now()
);
create index file_upload_reservations_tenant on file_upload_reservations (tenant_id);
create index file_upload_reservations_touched on file_upload_reservations (touched_at);`;

/** An advisory lock's key per tenant: reservations of one tenant are decided one at a time, other tenants' are not held up. */
const lockOf = (tenantId: string) => `file-quota:${tenantId}`;

export interface UploadReservation {
  tenantId: string;
  uploadId: string;
  bytes: number;
  quotaBytes: number;
}

/**
 * Reserves an upload's bytes when the tenant's stored files and uploads in progress leave room for them; refuses
 * with FILE_QUOTA_EXCEEDED otherwise. `storedBytes` is the files read model's sum, read under the tenant's lock.
 */
export async function reserveUpload(db: SqlPool, storedBytes: (tenantId: string) => Promise<number>, r: UploadReservation): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [lockOf(r.tenantId)]);
    const reserved = await tx.query<{ bytes: string }>(
      'select coalesce(sum(bytes), 0)::text as bytes from file_upload_reservations where tenant_id = $1',
      [r.tenantId],
    );
    const used = (await storedBytes(r.tenantId)) + Number(reserved.rows[0]?.bytes ?? 0);
    if (used + r.bytes > r.quotaBytes)
      throw new DomainError('FILE_QUOTA_EXCEEDED', { quotaMb: sizeInMb(r.quotaBytes), usedMb: sizeInMb(used) });
    await tx.query('insert into file_upload_reservations (upload_id, tenant_id, bytes) values ($1, $2, $3)', [
      r.uploadId,
      r.tenantId,
      r.bytes,
    ]);
  });
}

/** Ends an upload's reservation (recorded, terminated or expired); ending one that is not there is not an error. */
export async function releaseUpload(db: SqlPool, uploadId: string): Promise<void> {
  await db.query('delete from file_upload_reservations where upload_id = $1', [uploadId]);
}

/** Notes that an upload received bytes: it is not abandoned. */
export async function touchUpload(db: SqlPool, uploadId: string): Promise<void> {
  await db.query('update file_upload_reservations set touched_at = now() where upload_id = $1', [uploadId]);
}

/** Uploads that received nothing since `before`: abandoned, what the sweep removes. */
export async function abandonedUploads(db: SqlPool, before: Date, limit: number): Promise<Array<{ uploadId: string; tenantId: string }>> {
  const rows = await db.query<{ uploadId: string; tenantId: string }>(
    `select upload_id as "uploadId", tenant_id as "tenantId" from file_upload_reservations where touched_at < $1
     order by touched_at limit $2`,
    [before, limit],
  );
  return rows.rows;
}
