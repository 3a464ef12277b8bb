import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { S3_TEST_CREDENTIALS, startMoto } from '../harness/moto.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { routes } from '@iot/contracts';
import { tusClient } from './tus.ts';

/**
 * The platform at scale for files (S3_URL): uploads in progress in the bucket through @tus/s3-store (multipart
 * parts of 8 MiB, so a cut upload resumes from its last whole part), the file copied under `<tenant>/<id>` with its
 * SHA-256, and served back with ranges. The S3-compatible server is moto's, started by the test.
 */
let s3: EngineHandle;
let sut: TestPlatform;
let base: string;
let token: string;
const MB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  const engine = await resolveEngine('moto (S3)', 'S3_TEST_URL', startMoto);
  if (!engine.ok) throw new Error(engine.reason);
  s3 = engine.engine;
  sut = await startTestPlatform({
    S3_URL: s3.url,
    S3_BUCKET: 'platform-files',
    S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
  });
  base = sut.platform.url!.replace('localhost', '127.0.0.1');
  await sut.seedTenant({ id: 'delta', name: 'deltaCo', adminUsername: 'deltaAdmin', adminPassword: 'Delta#pw1' });
  token = await sut.login('deltaAdmin', 'Delta#pw1');
}, 120_000);
afterAll(async () => {
  await sut?.stop();
  await s3?.stop();
});

describe('files in an S3-compatible store', () => {
  it('resumes an upload in the bucket after a lost connection and serves the whole and a range back', async () => {
    const content = randomBytes(12 * MB + 4321);
    const tus = tusClient(base, token);
    const created = await tus.create(content.byteLength, { name: 'ota-12m.bin', fileType: 'upgrade', version: '3.0' });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;

    // 9 MiB go out before the connection drops: the store keeps the whole 8 MiB part and what came of the next.
    await tus.patchCut(location, 0, content, 9 * MB);
    let resumed = await tus.offset(location);
    for (let tries = 0; resumed.offset === 0 && tries < 200; tries++) resumed = await tus.offset(location);
    expect(resumed.status).toBe(200);
    expect(resumed.offset).toBeGreaterThanOrEqual(8 * MB);
    expect(resumed.offset).toBeLessThanOrEqual(9 * MB);

    // From where the copy ends when asked again: the cut request may still have been landing.
    const resume = async () => {
      const at = (await tus.offset(location)).offset;
      return tus.patch(location, at, content.subarray(at));
    };
    let last = await resume();
    for (let tries = 0; last.status !== 204 && tries < 200; tries++) last = await resume();
    expect(last.status, await last.text()).toBe(204);
    expect(last.headers.get('upload-sha256')).toBe(sha256(content));

    const id = location.split('/').at(-1)!;
    expect(ok(await sut.call('file.detail', { token, query: { id } }))).toMatchObject({
      size: content.byteLength,
      sha256: sha256(content),
    });
    const url = `${base}${routes['file.download'].path}?id=${id}`;
    const whole = await fetch(url, { headers: { authentication: token } });
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(content));
    const part = await fetch(url, { headers: { authentication: token, range: `bytes=${10 * MB}-${10 * MB + 99}` } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(10 * MB, 10 * MB + 100))).toBe(true);
  });
});
