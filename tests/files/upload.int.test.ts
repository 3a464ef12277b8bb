import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@iot/contracts';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { tusClient } from './tus.ts';

/**
 * File management through the platform's real HTTP listener (issue 21): resumable uploads over the tus protocol,
 * cut and resumed; downloads with byte ranges; quota and size limits refused before a byte is stored; another
 * tenant never sees a file or an upload; delete removes the bytes.
 */
let sut: TestPlatform;
let base: string;
let alpha: string;
let bravo: string;
const MB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const meta = { name: 'gateway-fw-2.1.bin', fileType: 'upgrade', extensionType: 'CLI', version: '2.1.0', declaration: '网关固件' };

/** Waits until `check` holds: the server writes what a cut request sent on its own time. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((r) => setImmediate(r));
  }
}

beforeAll(async () => {
  sut = await startTestPlatform({ FILE_MAX_MB: '2', FILE_QUOTA_MB: '3' });
  base = sut.platform.url!.replace('localhost', '127.0.0.1');
  await sut.seedTenant({ id: 'alpha', name: 'alphaCo', adminUsername: 'alphaAdmin', adminPassword: 'Alpha#pw1' });
  await sut.seedTenant({ id: 'bravo', name: 'bravoCo', adminUsername: 'bravoAdmin', adminPassword: 'Bravo#pw1' });
  alpha = await sut.login('alphaAdmin', 'Alpha#pw1');
  bravo = await sut.login('bravoAdmin', 'Bravo#pw1');
}, 120_000);
afterAll(async () => sut?.stop());

describe('file upload, download and delete', () => {
  const content = randomBytes(Math.round(1.5 * MB));
  let location: string;
  let fileId: string;

  it('resumes an upload cut in the middle and records the SHA-256 of the whole', async () => {
    const tus = tusClient(base, alpha);
    const created = await tus.create(content.byteLength, meta);
    expect(created.status).toBe(201);
    location = created.headers.get('location')!;
    expect(location.startsWith(`${routes['file.upload'].path}/`)).toBe(true);

    const first = await tus.patch(location, 0, content.subarray(0, 400 * 1024));
    expect(first.status).toBe(204);
    expect(Number(first.headers.get('upload-offset'))).toBe(400 * 1024);

    // The connection drops after 300 KB more of a PATCH that meant to send the rest.
    await tus.patchCut(location, 400 * 1024, content.subarray(400 * 1024), 300 * 1024);
    const resumed = await until(
      () => tus.offset(location),
      (r) => r.offset >= 400 * 1024,
    );
    expect(resumed.status).toBe(200);
    expect(resumed.offset).toBeGreaterThanOrEqual(400 * 1024);
    expect(resumed.offset).toBeLessThan(content.byteLength);

    // The cut request may still be writing when it is first asked for: a PATCH from a stale offset is answered 409
    // and one that races its lock 423, so the client asks where the copy ends again and sends from there.
    const last = await until(
      async () => {
        const at = (await tus.offset(location)).offset;
        return tus.patch(location, at, content.subarray(at));
      },
      (r) => r.status === 204,
      30_000,
    );
    expect(last.status, await last.text()).toBe(204);
    expect(last.headers.get('upload-sha256')).toBe(sha256(content));
    fileId = location.split('/').at(-1)!;

    const listed = ok(await sut.call('file.list', { token: alpha, query: { fileType: 'upgrade' } }));
    expect(listed.rows).toEqual([
      expect.objectContaining({
        id: fileId,
        name: meta.name,
        size: content.byteLength,
        sizeMb: '1.50',
        sha256: sha256(content),
        extensionType: 'CLI',
        version: '2.1.0',
        declaration: '网关固件',
        uploader: 'alphaAdmin',
      }),
    ]);
  });

  it('serves the whole file and byte ranges of it (206, Content-Range), and 416 past its end', async () => {
    const url = `${base}${routes['file.download'].path}?id=${fileId}`;
    const whole = await fetch(url, { headers: { authentication: alpha } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-disposition')).toContain('gateway-fw-2.1.bin');
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(content));

    const part = await fetch(url, { headers: { authentication: alpha, range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${content.byteLength}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(1000, 2000))).toBe(true);

    const tail = await fetch(url, { headers: { authentication: alpha, range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(content.subarray(content.byteLength - 10))).toBe(true);

    const past = await fetch(url, { headers: { authentication: alpha, range: `bytes=${content.byteLength}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${content.byteLength}`);
    expect(((await past.json()) as { data: { error: string } }).data.error).toBe('RANGE_NOT_SATISFIABLE');
  });

  it('never shows one tenant’s file or upload to another', async () => {
    expect(refusal(await sut.call('file.detail', { token: bravo, query: { id: fileId } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('file.list', { token: bravo })).total).toBe(0);
    const download = await fetch(`${base}${routes['file.download'].path}?id=${fileId}`, { headers: { authentication: bravo } });
    expect(download.status).toBe(404);
    expect(refusal(await sut.call('file.delete', { token: bravo, query: { id: fileId } }))).toBe('NOT_FOUND');

    // An upload still in progress is not there for the other tenant either.
    const mine = tusClient(base, alpha);
    const pending = (await mine.create(1000, { ...meta, name: 'pending.bin' })).headers.get('location')!;
    const theirs = tusClient(base, bravo);
    expect((await theirs.offset(pending)).status).toBe(404);
    expect((await theirs.patch(pending, 0, randomBytes(1000))).status).toBe(404);
    expect((await mine.offset(pending)).offset).toBe(0);
    expect((await fetch(`${base}${pending}`, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } })).status).toBe(401);
  });

  it('refuses, before storing a byte, an upload past the size limit or the quota, and metadata it does not know', async () => {
    const tus = tusClient(base, alpha);
    const uploads = path.join(sut.platform.context.config.DATA_DIR, 'uploads');
    const before = (await readdir(uploads)).length;

    const tooLarge = await tus.create(2 * MB + 1, meta);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ data: { error: 'FILE_UPLOAD_TOO_LARGE' } });

    // 1.5 MB stored of 3 MB: 1.8 MB more does not fit.
    const overQuota = await tus.create(Math.round(1.8 * MB), meta);
    expect(overQuota.status).toBe(413);
    const refused = (await overQuota.json()) as { msg: string; data: { error: string } };
    expect(refused.data.error).toBe('FILE_QUOTA_EXCEEDED');
    expect(refused.msg).toContain('3.00');

    const badType = await tus.create(10, { ...meta, fileType: 'virus' });
    expect(badType.status).toBe(400);
    expect(await badType.json()).toMatchObject({ data: { error: 'VALIDATION' } });
    expect((await readdir(uploads)).length).toBe(before);
  });

  it('deletes a file and its bytes', async () => {
    const stored = path.join(sut.platform.context.config.DATA_DIR, 'files', 'alpha');
    expect(await readdir(stored)).toContain(fileId);
    ok(await sut.call('file.delete', { token: alpha, query: { id: fileId } }));
    expect(await readdir(stored)).not.toContain(fileId);
    expect(refusal(await sut.call('file.detail', { token: alpha, query: { id: fileId } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('file.usage', { token: alpha }))).toMatchObject({ usedBytes: 0, quotaBytes: 3 * MB, maxFileBytes: 2 * MB });
  });
});

describe('the tus protocol’s own refusals', () => {
  it('answer in the platform’s envelope', async () => {
    const tus = tusClient(base, alpha);
    const location = (await tus.create(100, { ...meta, name: 'offsets.bin' })).headers.get('location')!;
    const wrongOffset = await tus.patch(location, 50, randomBytes(10));
    expect(wrongOffset.status).toBe(409);
    expect(await wrongOffset.json()).toMatchObject({ code: 409, data: { error: 'VALIDATION' } });
  });
});

describe('the authority service’s file/upload and file/download (spec §7)', () => {
  it('takes a common file from a logged-in user, serves it back with ranges, and keeps it to its tenant', async () => {
    const tus = tusClient(base, alpha, routes['authFile.upload'].path);
    const bytes = randomBytes(64 * 1024);
    // An upgrade package is not the authority service's to take.
    expect((await tus.create(bytes.byteLength, { name: 'fw.bin', fileType: 'upgrade' })).status).toBe(400);
    const created = await tus.create(bytes.byteLength, { name: '合同.pdf', declaration: 'signed contract' });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location.startsWith(`${routes['authFile.upload'].path}/`)).toBe(true);
    const done = await tus.patch(location, 0, bytes);
    expect(done.status).toBe(204);
    expect(done.headers.get('upload-sha256')).toBe(sha256(bytes));
    const id = location.split('/').at(-1)!;
    expect(ok(await sut.call('file.detail', { token: alpha, query: { id } }))).toMatchObject({ fileType: 'common', name: '合同.pdf' });

    const url = `${base}${routes['authFile.download'].path}?id=${id}`;
    const whole = await fetch(url, { headers: { authentication: alpha } });
    expect(whole.status).toBe(200);
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(bytes));
    const part = await fetch(url, { headers: { authentication: alpha, range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    expect((await fetch(url, { headers: { authentication: bravo } })).status).toBe(404);
    expect((await fetch(url)).status).toBe(401);
  });

  it('serves only common files and logos: an upgrade package goes through the IoT download and its permission', async () => {
    const tus = tusClient(base, alpha);
    const bytes = randomBytes(1000);
    const location = (await tus.create(bytes.byteLength, { ...meta, name: 'fw-3.bin' })).headers.get('location')!;
    expect((await tus.patch(location, 0, bytes)).status).toBe(204);
    const id = location.split('/').at(-1)!;
    const answer = await fetch(`${base}${routes['authFile.download'].path}?id=${id}`, { headers: { authentication: alpha } });
    expect(answer.status).toBe(404);
  });
});
