import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import { checkedKey } from './key.ts';

/** Where an S3-compatible store is and who the platform is there (README "Files"). */
export interface S3Settings {
  /** The endpoint, e.g. `http://minio:9000`; path-style addressing, so any S3-compatible server will do. */
  url: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Parts of a multipart upload: S3 takes at least 5 MiB a part but the last; held in memory one at a time. */
const PART_BYTES = 8 * 1024 * 1024;

export function s3Client(s: S3Settings): S3Client {
  return new S3Client({
    endpoint: s.url,
    region: s.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
  });
}

/** Whether the bucket answers: the store's health. */
export const bucketExists = (client: S3Client, bucket: string): Promise<boolean> =>
  client.send(new HeadBucketCommand({ Bucket: bucket })).then(
    () => true,
    () => false,
  );

/** Creates the bucket when it is not there (a fresh MinIO or moto), so a first start needs no manual step. */
export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  if (!(await bucketExists(client, bucket))) await client.send(new CreateBucketCommand({ Bucket: bucket }));
}

const notFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/** Files in an S3-compatible object store (S3_URL): objects named by their key in one bucket. */
export function s3FileStore(client: S3Client, bucket: string): FileStore {
  return {
    async put(key, body) {
      const Key = checkedKey(key);
      const hash = createHash('sha256');
      let size = 0;
      let buffered: Uint8Array[] = [];
      let bufferedBytes = 0;
      let uploadId: string | undefined;
      const parts: { ETag: string; PartNumber: number }[] = [];
      const flush = async () => {
        if (!uploadId) uploadId = (await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }))).UploadId!;
        const PartNumber = parts.length + 1;
        const part = Buffer.concat(buffered);
        buffered = [];
        bufferedBytes = 0;
        const { ETag } = await client.send(new UploadPartCommand({ Bucket: bucket, Key, UploadId: uploadId, PartNumber, Body: part }));
        parts.push({ ETag: ETag!, PartNumber });
      };
      try {
        for await (const chunk of body) {
          hash.update(chunk);
          size += chunk.byteLength;
          buffered.push(chunk);
          bufferedBytes += chunk.byteLength;
          if (bufferedBytes >= PART_BYTES) await flush();
        }
        if (!uploadId) {
          await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: Buffer.concat(buffered), ContentLength: size }));
        } else {
          if (bufferedBytes > 0) await flush();
          await client.send(
            new CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
          );
        }
      } catch (error) {
        if (uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId: uploadId })).catch(() => {});
        throw error;
      }
      return { size, sha256: hash.digest('hex') };
    },
    async read(key, range) {
      try {
        const answer = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: checkedKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        return answer.Body as Readable;
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async size(key) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: checkedKey(key) }))).ContentLength ?? null;
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: checkedKey(key) }));
    },
  };
}
