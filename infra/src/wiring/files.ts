import path from 'node:path';
import { FileStore as TusFileStore } from '@tus/file-store';
import type { Logger } from 'pino';
import type { FileLimits } from '@iot/contracts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { SqlPool } from '@iot/contracts/ports/sql.ts';
import { abandonedUploads, releaseUpload, reserveUpload, touchUpload } from '@iot/command/file/quota.ts';
import { fileBytesOfTenant } from '@iot/projections/file/read.ts';
import { ConfigError, type Config } from '../config.ts';
import { localFileStore } from '../files/local.ts';
import { cachedFileReads } from '../files/read-cache.ts';
import type { S3Settings } from '../files/s3.ts';
import type { EngineHealth } from '../http/context.ts';
import type { TusOptions, UploadReservations } from '../http/tus.ts';
import type { Stops } from './stops.ts';

export interface FilesWiring {
  files: FileStore;
  fileLimits: FileLimits;
  tus: TusOptions;
  /** Removes uploads abandoned for FILE_UPLOAD_EXPIRY_H (their parts and their quota reservation); runs on its own clock too. */
  sweepUploads(now?: Date): Promise<number>;
}

const MB = 1024 * 1024;

/** The settings of S3_URL, or null for local disk; the key pair must come with it. */
export function s3SettingsOf(config: Config): S3Settings | null {
  if (!config.S3_URL) return null;
  if (!config.S3_ACCESS_KEY_ID || !config.S3_SECRET_ACCESS_KEY)
    throw new ConfigError('S3_URL needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  return {
    url: config.S3_URL,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
  };
}

const BATCH = 100;

/** The quota's reservations of uploads in progress, in the platform's PostgreSQL. */
export const uploadReservations = (db: SqlPool): UploadReservations => ({
  reserve: (r) => reserveUpload(db, (tenantId) => fileBytesOfTenant(db, tenantId), r),
  touch: (uploadId) => touchUpload(db, uploadId),
  release: (uploadId) => releaseUpload(db, uploadId),
});

/**
 * Removes uploads that received no byte since `expiryMs` before `now`: their stored parts (the tus store's file or
 * S3 multipart upload) and then their reservation, so that an abandoned upload holds neither disk nor quota.
 */
export async function sweepAbandonedUploads(db: SqlPool, datastore: TusOptions['datastore'], expiryMs: number, now = new Date()) {
  let removed = 0;
  for (;;) {
    const batch = await abandonedUploads(db, new Date(now.getTime() - expiryMs), BATCH);
    for (const { uploadId } of batch) {
      await datastore.remove(uploadId).catch(() => {});
      await releaseUpload(db, uploadId);
      removed++;
    }
    if (batch.length < BATCH) return removed;
  }
}

/**
 * Uploaded files: on disk under DATA_DIR/files with uploads in progress under DATA_DIR/uploads (tus file store), or
 * in the S3_URL bucket, uploads in progress there too (tus S3 store: multipart uploads, resumable from any process).
 */
export async function startFiles(config: Config, engines: EngineHealth[], db: SqlPool, logger: Logger, stops: Stops): Promise<FilesWiring> {
  const fileLimits = { quotaBytes: config.FILE_QUOTA_MB * MB, maxFileBytes: config.FILE_MAX_MB * MB };
  const reservations = uploadReservations(db);
  const expiryMs = config.FILE_UPLOAD_EXPIRY_H * 3_600_000;
  const wired = (files: FileStore, datastore: TusOptions['datastore']): FilesWiring => {
    const sweepUploads = (now?: Date) => sweepAbandonedUploads(db, datastore, expiryMs, now);
    // A quarter of the expiry, at most hourly: an abandoned upload is gone within 1.25 times it.
    const timer = setInterval(
      () => void sweepUploads().catch((err: unknown) => logger.error({ err }, 'sweeping abandoned uploads failed')),
      Math.min(expiryMs / 4, 3_600_000),
    );
    timer.unref();
    stops.push(async () => clearInterval(timer));
    // A rollout's package is read by every device, range by range: small files are served from memory.
    return { files: cachedFileReads(files), fileLimits, tus: { datastore, reservations }, sweepUploads };
  };
  const s3 = s3SettingsOf(config);
  if (!s3) {
    return wired(
      localFileStore(path.resolve(config.DATA_DIR, 'files')),
      new TusFileStore({ directory: path.resolve(config.DATA_DIR, 'uploads') }),
    );
  }
  // Loaded only with S3_URL: the AWS SDK's modules (their code and sources) are not in the memory of a platform on local disk.
  const [{ bucketExists, ensureBucket, s3Client, s3FileStore }, { S3Store }] = await Promise.all([
    import('../files/s3.ts'),
    import('@tus/s3-store'),
  ]);
  const client = s3Client(s3);
  await ensureBucket(client, s3.bucket);
  engines.push({
    name: 's3',
    check: async () => ({ ok: await bucketExists(client, s3.bucket) }),
  });
  const datastore = new S3Store({
    partSize: 8 * MB,
    s3ClientConfig: {
      bucket: s3.bucket,
      endpoint: s3.url,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    },
  });
  return wired(s3FileStore(client, s3.bucket), datastore);
}
