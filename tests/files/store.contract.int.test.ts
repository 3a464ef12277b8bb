import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import { localFileStore } from '@iot/infra/files/local.ts';
import { ensureBucket, s3Client, s3FileStore } from '@iot/infra/files/s3.ts';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { S3_TEST_CREDENTIALS, startMoto } from '../harness/moto.ts';

/**
 * The FileStore port's contract (ARCHITECTURE.md "Ports and adapters"), run against each adapter: local disk under
 * DATA_DIR, and an S3-compatible store, here moto's server started by the test (or S3_TEST_URL).
 */
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
async function* chunks(bytes: Uint8Array, size = 64 * 1024): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}
async function whole(body: AsyncIterable<Uint8Array> | null): Promise<Buffer> {
  if (!body) throw new Error('no object');
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

let dir: string;
let s3: EngineHandle;
const adapters: Record<string, () => FileStore> = {};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'files-contract-'));
  adapters.local = () => localFileStore(dir);
  const engine = await resolveEngine('moto (S3)', 'S3_TEST_URL', startMoto);
  if (!engine.ok) throw new Error(engine.reason);
  s3 = engine.engine;
  const client = s3Client({ url: s3.url, bucket: 'contract', region: 'us-east-1', ...S3_TEST_CREDENTIALS });
  await ensureBucket(client, 'contract');
  adapters.s3 = () => s3FileStore(client, 'contract');
}, 60_000);
afterAll(async () => {
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe.each(['local', 's3'])('the %s FileStore', (name) => {
  const store = () => adapters[name]!();

  it('stores a stream whole and answers its size and SHA-256 computed as it streamed', async () => {
    const bytes = randomBytes(300_000);
    expect(await store().put('t1/a', chunks(bytes))).toEqual({ size: bytes.byteLength, sha256: sha256(bytes) });
    expect(await store().size('t1/a')).toBe(bytes.byteLength);
    expect((await whole(await store().read('t1/a'))).equals(bytes)).toBe(true);
  });

  it('reads an inclusive byte range', async () => {
    const bytes = randomBytes(10_000);
    await store().put('t1/range', chunks(bytes, 1000));
    expect((await whole(await store().read('t1/range', { start: 100, end: 199 }))).equals(bytes.subarray(100, 200))).toBe(true);
    expect((await whole(await store().read('t1/range', { start: 9_990, end: 9_999 }))).equals(bytes.subarray(9_990))).toBe(true);
  });

  it('stores an object larger than one multipart part (8 MiB) in order', async () => {
    const bytes = randomBytes(9 * 1024 * 1024 + 123);
    expect(await store().put('t1/large', chunks(bytes, 1024 * 1024))).toEqual({ size: bytes.byteLength, sha256: sha256(bytes) });
    expect(sha256(await whole(await store().read('t1/large')))).toBe(sha256(bytes));
  });

  it('replaces an object put again under its key, and an empty object is one', async () => {
    await store().put('t1/again', chunks(Buffer.from('first')));
    await store().put('t1/again', chunks(Buffer.from('second')));
    expect((await whole(await store().read('t1/again'))).toString()).toBe('second');
    expect(await store().put('t1/empty', chunks(new Uint8Array(0)))).toEqual({ size: 0, sha256: sha256(new Uint8Array(0)) });
    expect(await store().size('t1/empty')).toBe(0);
  });

  it('answers null for an object that is not there, and removes one (twice is not an error)', async () => {
    expect(await store().read('t1/none')).toBeNull();
    expect(await store().size('t1/none')).toBeNull();
    await store().put('t1/gone', chunks(Buffer.from('bytes')));
    await store().remove('t1/gone');
    await store().remove('t1/gone');
    expect(await store().read('t1/gone')).toBeNull();
  });

  it('keeps nothing of a stream that fails midway', async () => {
    async function* broken() {
      yield randomBytes(9 * 1024 * 1024);
      throw new Error('connection lost');
    }
    await expect(store().put('t1/broken', broken())).rejects.toThrow('connection lost');
    expect(await store().size('t1/broken')).toBeNull();
  });

  it('refuses a key that climbs out of its place', async () => {
    await expect(store().put('../outside', chunks(Buffer.from('x')))).rejects.toThrow('unsafe storage key');
    await expect(store().read('t1/../../etc/passwd')).rejects.toThrow('unsafe storage key');
  });
});
