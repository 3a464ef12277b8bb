import { createHash, randomBytes } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDownloadLinks } from '@iot/infra/files/download-links.ts';
import { ok } from '../harness/api.ts';
import { freePort } from '../harness/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { tusClient } from '../files/tus.ts';

/**
 * A rollout's file over HTTP (issue 21): each offer carries a URL with a short-lived token signed for that device
 * and task; the device fetches with Range, so a cut download resumes. An expired token is 401; an altered one, or
 * one presented by another device, 403; once the device's part in the task has ended its link fetches nothing.
 */
const SECRET = 'ota-url-secret-of-this-test';
let sut: TestPlatform;
let base: string;
let token: string;
let mqttPort: number;
const clients: MqttClient[] = [];
const offers = new Map<string, { taskId: string; url: string; urlExpiresAt: string; sha256: string }>();
const content = randomBytes(300 * 1024);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const devices: Array<{ sn: string; id: string; secret: string }> = [];

beforeAll(async () => {
  mqttPort = await freePort();
  sut = await startTestPlatform({ MQTT_PORT: String(mqttPort), OTA_URL_SECRET: SECRET, OTA_TICK_MS: '200' });
  base = sut.platform.url!.replace('localhost', '127.0.0.1');
  await sut.seedTenant({ id: 'alpha', name: 'alphaCo', adminUsername: 'alphaAdmin', adminPassword: 'Alpha#pw1' });
  token = await sut.login('alphaAdmin', 'Alpha#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'meter', code: 'DL-METER', type: 'direct' } })).id;
  for (const sn of ['DL-A', 'DL-B']) {
    const d = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId, version: '1.0' } }));
    devices.push({ sn, id: d.id, secret: d.secret });
    const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      username: sn,
      password: d.secret,
      clientId: sn,
      reconnectPeriod: 0,
    });
    client.on('message', (topic, payload) => {
      const message = JSON.parse(payload.toString()) as {
        identifier: string;
        params: { taskId: string; url: string; urlExpiresAt: string; sha256: string };
      };
      if (message.identifier === 'ota') offers.set(sn, message.params);
    });
    await client.subscribeAsync(`devices/${sn}/command/#`, { qos: 1 });
    clients.push(client);
  }
}, 180_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true)));
  await sut?.stop();
});

describe('a rollout file downloaded over HTTP with a signed link', () => {
  it('offers each device its own URL, served whole and by ranges that resume a cut download', async () => {
    const tus = tusClient(base, token);
    const created = await tus.create(content.byteLength, { name: 'meter-fw-2.0.bin', fileType: 'upgrade', version: '2.0' });
    const location = created.headers.get('location')!;
    expect((await tus.patch(location, 0, content)).status).toBe(204);
    const fileId = location.split('/').at(-1)!;
    ok(
      await sut.call('otaTask.create', {
        token,
        body: { name: 'meters to 2.0', fileId, target: { kind: 'devices', deviceIds: devices.map((d) => d.id) } },
      }),
    );
    await waitFor('both devices offered', () => offers.size === 2);
    const a = offers.get('DL-A')!;
    expect(a.sha256).toBe(sha256(content));
    expect(new URL(a.url).searchParams.get('sn')).toBe('DL-A');
    expect(Date.parse(a.urlExpiresAt)).toBeGreaterThan(Date.now());
    expect(offers.get('DL-B')!.url).not.toBe(a.url);

    const url = a.url.replace('localhost', '127.0.0.1');
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(content));

    // The download is cut after 100 KB; the device asks for the rest and has the same file.
    const first = Buffer.from(await (await fetch(url, { headers: { range: 'bytes=0-102399' } })).arrayBuffer());
    const rest = await fetch(url, { headers: { range: 'bytes=102400-' } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes 102400-${content.byteLength - 1}/${content.byteLength}`);
    expect(sha256(Buffer.concat([first, Buffer.from(await rest.arrayBuffer())]))).toBe(sha256(content));
  });

  it('refuses an altered token and another device’s token (403), and an expired one (401)', async () => {
    const a = new URL(offers.get('DL-A')!.url.replace('localhost', '127.0.0.1'));
    const tokenOfA = a.searchParams.get('token')!;
    const signature = tokenOfA.split('.')[1]!;
    const altered = new URL(a);
    altered.searchParams.set('token', `${tokenOfA.split('.')[0]}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const answer = await fetch(altered);
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { data: { error: string } }).data.error).toBe('OTA_LINK_INVALID');

    // Device B presents A's token as its own.
    const stolen = new URL(a);
    stolen.searchParams.set('sn', 'DL-B');
    expect((await fetch(stolen)).status).toBe(403);

    // A link signed with the platform's secret an hour ago, valid for ten minutes.
    const old = createDownloadLinks({ secret: SECRET, ttlSec: 600, base: () => base, now: () => Date.now() - 3_600_000 });
    const grant = { tenantId: 'alpha', taskId: offers.get('DL-A')!.taskId, deviceId: devices[0]!.id, sn: 'DL-A' };
    const expired = await fetch(old.issue(grant).url);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { data: { error: string } }).data.error).toBe('OTA_LINK_EXPIRED');
    // The same grant signed now is served: only the time was wrong.
    const fresh = createDownloadLinks({ secret: SECRET, ttlSec: 600, base: () => base });
    expect((await fetch(fresh.issue(grant).url, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
  });

  it('fetches nothing once the device’s part in the task has ended', async () => {
    const a = offers.get('DL-A')!;
    await clients[0]!.publishAsync(`devices/DL-A/ota/${a.taskId}/progress`, JSON.stringify({ status: 'done', version: '2.0' }), {
      qos: 1,
    });
    const url = a.url.replace('localhost', '127.0.0.1');
    await waitFor('A done', async () => (await fetch(url, { headers: { range: 'bytes=0-9' } })).status === 403);
    // B's part still runs: its link still works.
    expect((await fetch(offers.get('DL-B')!.url.replace('localhost', '127.0.0.1'), { headers: { range: 'bytes=0-9' } })).status).toBe(206);
  });
});
