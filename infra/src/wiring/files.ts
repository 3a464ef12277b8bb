import path from 'node:path';
import { FileStore as TusFileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import type { FileLimits } from '@iot/contracts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import { ConfigError, type Config } from '../config.ts';
import { localFileStore } from '../files/local.ts';
import { bucketExists, ensureBucket, s3Client, s3FileStore, type S3Settings } from '../files/s3.ts';
import type { EngineHealth } from '../http/context.ts';
import type { TusOptions } from '../http/tus.ts';

export interface FilesWiring {
  files: FileStore;
  fileLimits: FileLimits;
  tus: TusOptions;
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

/**
 * Uploaded files: on disk under DATA_DIR/files with uploads in progress under DATA_DIR/uploads (tus file store), or
 * in the S3_URL bucket, uploads in progress there too (tus S3 store: multipart uploads, resumable from any process).
 */
export async function startFiles(config: Config, engines: EngineHealth[]): Promise<FilesWiring> {
  const fileLimits = { quotaBytes: config.FILE_QUOTA_MB * MB, maxFileBytes: config.FILE_MAX_MB * MB };
  const s3 = s3SettingsOf(config);
  if (!s3) {
    return {
      files: localFileStore(path.resolve(config.DATA_DIR, 'files')),
      fileLimits,
      tus: { datastore: new TusFileStore({ directory: path.resolve(config.DATA_DIR, 'uploads') }) },
    };
  }
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
  return { files: s3FileStore(client, s3.bucket), fileLimits, tus: { datastore } };
}
