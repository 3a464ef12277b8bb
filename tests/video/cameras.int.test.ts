import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

/**
 * Video surveillance through the routes on the embedded engines (issue 21): cameras registered per group and device
 * with an HLS stream, listed by group subtree, and a snapshot reference on the alarms of a rule that names a camera.
 */
let sut: TestPlatform;
let token: string;
let productId: string;
let device: { id: string; secret: string };
let site: string;
let hall: string;
let other: string;
const clients: MqttClient[] = [];

const camera = (more: Record<string, unknown> = {}) => ({
  name: 'North gate',
  streamUrl: 'https://gw.example.com/live/north.m3u8',
  groupId: site,
  location: 'Gate 1',
  ...more,
});

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'victor', name: 'victorCo', adminUsername: 'victorAdmin', adminPassword: 'Victor#pw1' });
  await sut.seedTenant({ id: 'whisky', name: 'whiskyCo', adminUsername: 'whiskyAdmin', adminPassword: 'Whisky#pw1' });
  token = await sut.login('victorAdmin', 'Victor#pw1');
  const theirs = await sut.login('whiskyAdmin', 'Whisky#pw1');
  site = ok(await sut.call('group.create', { token, body: { name: 'Site', type: 'office' } })).id;
  hall = ok(await sut.call('group.create', { token, body: { name: 'Hall', type: 'site', parentId: site } })).id;
  other = ok(await sut.call('group.create', { token: theirs, body: { name: 'Theirs', type: 'office' } })).id;
  productId = ok(await sut.call('product.create', { token, body: { name: 'Boiler', code: 'VID', type: 'direct' } })).id;
  const temperature = { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200 } };
  ok(await sut.call('product.defineFunction', { token, body: { productId, function: temperature } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  device = ok(await sut.call('device.create', { token, body: { sn: 'VID-1', name: 'boiler', productId, groupId: hall } }));
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

describe('cameras', () => {
  it('refuses a stream that is not an HLS playlist over HTTP(S), or carries credentials, in the caller’s language', async () => {
    for (const streamUrl of [
      'rtsp://cam.example.com/live',
      'https://gw.example.com/live/north.mp4',
      'https://user:pass@gw.example.com/live/north.m3u8',
      'not a url',
    ]) {
      const r = await sut.call('camera.create', { token, body: camera({ streamUrl }), headers: { lang: 'en' } });
      expect([r.status, refusal(r)], streamUrl).toEqual([400, 'VALIDATION']);
    }
  });

  it('refuses a group or device of another tenant', async () => {
    expect(refusal(await sut.call('camera.create', { token, body: camera({ groupId: other }) }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('camera.create', { token, body: camera({ deviceId: 'nope' }) }))).toBe('NOT_FOUND');
  });

  it('is registered, listed by group subtree, edited and deleted', async () => {
    const { id } = ok(await sut.call('camera.create', { token, body: camera() }));
    const inHall = ok(
      await sut.call('camera.create', {
        token,
        body: camera({ name: 'Boiler room', groupId: hall, deviceId: device.id, streamUrl: 'http://10.1.2.3:8888/boiler/index.m3u8' }),
      }),
    ).id;
    expect(ok(await sut.call('camera.detail', { token, query: { id } }))).toMatchObject({
      name: 'North gate',
      groupId: site,
      location: 'Gate 1',
    });
    const names = async (query: Record<string, string>) =>
      ok(await sut.call('camera.list', { token, query: { sort: 'name', order: 'asc', ...query } })).rows.map((r) => r.name);
    expect(await names({})).toEqual(['Boiler room', 'North gate']);
    expect(await names({ groupId: site })).toEqual(['Boiler room', 'North gate']);
    expect(await names({ groupId: hall })).toEqual(['Boiler room']);
    expect(await names({ stationId: hall })).toEqual(['Boiler room']);
    expect(await names({ deviceId: device.id })).toEqual(['Boiler room']);

    ok(await sut.call('camera.update', { token, body: { id, ...camera({ name: 'South gate', location: null }) } }));
    expect(ok(await sut.call('camera.detail', { token, query: { id } }))).toMatchObject({ name: 'South gate', location: null });
    ok(await sut.call('camera.delete', { token, query: { id: inHall } }));
    expect(refusal(await sut.call('camera.detail', { token, query: { id: inHall } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('camera.update', { token, body: { id: inHall, ...camera() } }))).toBe('NOT_FOUND');
    expect(await names({})).toEqual(['South gate']);
  });

  it('attaches a snapshot of the rule’s camera to each alarm the rule raises: the stream then and the moment', async () => {
    const cameraId = ok(await sut.call('camera.create', { token, body: camera({ name: 'Boiler cam', groupId: hall }) })).id;
    const rule = { name: 'hot', productId, variable: 'temperature', type: 'cloud', mode: 'crossUpper', threshold: 80, level: 3 };
    expect(refusal(await sut.call('alarmRule.create', { token, body: { ...rule, cameraId: 'no-such-camera' } }))).toBe('NOT_FOUND');
    const ruleId = ok(await sut.call('alarmRule.create', { token, body: { ...rule, cameraId } })).id;
    const listed = ok(await sut.call('alarmRule.list', { token })).rows;
    expect(listed.find((r) => r.id === ruleId)?.cameraId).toBe(cameraId);
    await sut.platform.runner.catchUp();

    const mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
    const client = mqtt.connect(mqttUrl, { username: 'VID-1', password: device.secret, clientId: 'c-VID-1', reconnectPeriod: 0 });
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    const sent = Date.now();
    await client.publishAsync('devices/VID-1/telemetry', JSON.stringify({ temperature: 95 }), { qos: 1 });
    const alarm = await waitFor('the alarm of the rule', async () => {
      await sut.platform.runner.catchUp();
      return ok(await sut.call('alarm.list', { token })).rows.find((a) => a.ruleId === ruleId);
    });
    const snapshot = await waitFor('its snapshot', async () => {
      await sut.platform.runner.catchUp();
      const r = await sut.call('camera.snapshot', { token, query: { alarmId: alarm.id } });
      return r.status === 200 ? ok(r) : null;
    });
    expect(snapshot).toMatchObject({ alarmId: alarm.id, cameraId, cameraName: 'Boiler cam', streamUrl: camera().streamUrl });
    expect(Math.abs(new Date(snapshot.at).getTime() - sent)).toBeLessThan(60_000);

    // Another tenant sees neither the snapshot nor the camera.
    const theirs = await sut.login('whiskyAdmin', 'Whisky#pw1');
    expect(refusal(await sut.call('camera.snapshot', { token: theirs, query: { alarmId: alarm.id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('camera.detail', { token: theirs, query: { id: cameraId } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('camera.list', { token: theirs })).total).toBe(0);
  });
});
