import { Readable } from 'node:stream';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channels } from '@iot/contracts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** A 100,000-row import streams: rows are imported while the file is still arriving, and progress is pushed as they are. */
let sut: TestPlatform;
let token: string;
const ROWS = 100_000;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'novem', name: 'novemCo', adminUsername: 'novemAdmin', adminPassword: 'Novem#pw1' });
  token = await sut.login('novemAdmin', 'Novem#pw1');
  const product = await sut.call('product.create', { token, body: { name: 'Stream', code: 'STREAM', type: 'direct' } });
  expect(product.status).toBe(200);
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

describe('streamed import', () => {
  it('imports 100,000 rows, pushing progress over the websocket before the upload has ended', async () => {
    const base = sut.platform.url!.replace('localhost', '127.0.0.1');
    const socket = new WebSocket(`${base.replace('http', 'ws')}${channels['device.import'].path}`, { headers: { authentication: token } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const progress: Array<{ rows: number; done: boolean; at: number }> = [];
    socket.on('message', (data) => progress.push({ ...JSON.parse(String(data)), at: performance.now() }));

    let lastChunkAt = 0;
    const rows = (function* () {
      // Rows of ~220 bytes: a 22 MB file, more than the socket buffers between the two ends can hold at once.
      const remark = 'r'.repeat(180);
      yield 'sn,name,product,remark\n';
      for (let i = 0; i < ROWS; i += 1000) {
        let chunk = '';
        for (let k = i; k < i + 1000; k++) chunk += `STREAM-${k},device ${k},STREAM,${remark}\n`;
        yield chunk;
      }
      lastChunkAt = performance.now();
    })();
    const answer = await fetch(`${base}/api/iot/device/import?jobId=stream-100k&filename=big.csv`, {
      method: 'POST',
      headers: { authentication: token, 'content-type': 'text/csv' },
      body: Readable.toWeb(Readable.from(rows)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const result = ((await answer.json()) as { data: { created: number; failed: number; total: number } }).data;
    expect(result).toMatchObject({ total: ROWS, created: ROWS, failed: 0 });
    await new Promise((r) => setTimeout(r, 100));
    socket.close();
    expect(progress.length).toBeGreaterThanOrEqual(ROWS / 1000);
    expect(progress.at(-1)).toMatchObject({ rows: ROWS, done: true });
    // Rows were imported, and said so, while the file was still being sent.
    expect(progress[0]!.at).toBeLessThan(lastChunkAt);
    await sut.platform.runner.catchUp(60_000);
    const count = await sut.db.pool.query<{ n: number }>(`select count(*)::int as n from rm_devices where tenant_id = 'novem'`);
    expect(count.rows[0]!.n).toBe(ROWS);
  }, 180_000);
});
