import { randomBytes } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { channelMessages, channels, type OtaProgressFeed } from '@iot/contracts';
import { ok } from '../harness/api.ts';
import { freePort } from '../harness/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { tusClient } from '../files/tus.ts';

/**
 * The `ota.progress` channel (issue 21): the rollout screens hear each device's progress and the task's counts as
 * they change, instead of asking every two seconds; a tenant hears only its own rollouts.
 */
let sut: TestPlatform;
let mqttPort: number;
const clients: MqttClient[] = [];
const sockets: WebSocket[] = [];

function listen(token: string) {
  const messages: OtaProgressFeed[] = [];
  const socket = new WebSocket(`${sut.platform.url!.replace('http', 'ws')}${channels['ota.progress'].path}`, {
    headers: { authentication: token },
  });
  sockets.push(socket);
  socket.on('message', (data) => messages.push(...(channelMessages(String(data)) as OtaProgressFeed[])));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { messages, opened };
}

/** A tenant with one connected device offered a rollout: its token, the device's MQTT client and the task. */
async function tenantWithRollout(id: string, password: string) {
  await sut.seedTenant({ id, name: `${id}Co`, adminUsername: `${id}Admin`, adminPassword: password });
  const token = await sut.login(`${id}Admin`, password);
  const feed = listen(token);
  await feed.opened;
  const productId = ok(
    await sut.call('product.create', { token, body: { name: 'meter', code: `${id}-M`.toUpperCase(), type: 'direct' } }),
  ).id;
  const sn = `${id.toUpperCase()}-1`;
  const device = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId, version: '1.0' } }));
  const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
    username: sn,
    password: device.secret,
    clientId: sn,
    reconnectPeriod: 0,
  });
  clients.push(client);
  let taskId: string | null = null;
  client.on('message', (_topic, payload) => {
    const message = JSON.parse(payload.toString()) as { identifier: string; params: { taskId: string } };
    if (message.identifier === 'ota') taskId = message.params.taskId;
  });
  await client.subscribeAsync(`devices/${sn}/command/#`, { qos: 1 });
  const tus = tusClient(sut.platform.url!.replace('localhost', '127.0.0.1'), token);
  const content = randomBytes(4096);
  const location = (await tus.create(content.byteLength, { name: 'fw-2.0.bin', fileType: 'upgrade', version: '2.0' })).headers.get(
    'location',
  )!;
  expect((await tus.patch(location, 0, content)).status).toBe(204);
  ok(
    await sut.call('otaTask.create', {
      token,
      body: { name: 'to 2.0', fileId: location.split('/').at(-1)!, target: { kind: 'devices', deviceIds: [device.id] } },
    }),
  );
  await waitFor(`${sn} offered`, () => taskId !== null);
  return { feed, client, sn, deviceId: device.id, taskId: taskId! };
}

beforeAll(async () => {
  mqttPort = await freePort();
  sut = await startTestPlatform({ MQTT_PORT: String(mqttPort), OTA_TICK_MS: '200' });
}, 180_000);
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await Promise.all(clients.map((c) => c.endAsync(true)));
  await sut?.stop();
});

describe('the ota.progress channel', () => {
  it("carries a device's progress and its task's counts to its own tenant's listeners, and nothing to another's", async () => {
    const alpha = await tenantWithRollout('feeda', 'Alpha#pw1');
    await alpha.client.publishAsync(
      `devices/${alpha.sn}/ota/${alpha.taskId}/progress`,
      JSON.stringify({ status: 'downloading', percent: 40 }),
      { qos: 1 },
    );

    await waitFor('the device progress heard', () =>
      alpha.feed.messages.some(
        (m) => m.type === 'device' && m.deviceId === alpha.deviceId && m.stage === 'downloading' && m.percent === 40,
      ),
    );
    await waitFor('the task counts heard', () =>
      alpha.feed.messages.some((m) => m.type === 'task' && m.taskId === alpha.taskId && m.counts.executing === 1 && m.counts.total === 1),
    );
    await alpha.client.publishAsync(
      `devices/${alpha.sn}/ota/${alpha.taskId}/progress`,
      JSON.stringify({ status: 'done', version: '2.0' }),
      {
        qos: 1,
      },
    );
    await waitFor('the task finished heard', () =>
      alpha.feed.messages.some((m) => m.type === 'task' && m.taskId === alpha.taskId && m.status === 'success' && m.counts.success === 1),
    );

    // Beta's rollout comes after alpha's in the log: by the time beta hears of its own, a leak of alpha's would have come.
    const beta = await tenantWithRollout('feedb', 'Beta#pw1');
    await waitFor('beta hears its own offer', () => beta.feed.messages.some((m) => m.type === 'device' && m.deviceId === beta.deviceId));
    expect(beta.feed.messages.filter((m) => m.taskId !== beta.taskId)).toEqual([]);
    expect(alpha.feed.messages.filter((m) => m.taskId !== alpha.taskId)).toEqual([]);
  }, 240_000);
});
