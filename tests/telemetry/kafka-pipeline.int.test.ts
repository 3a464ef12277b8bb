import { execFileSync } from 'node:child_process';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { startKafka } from '../harness/kafka.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';

/**
 * The telemetry pipeline with a real Kafka broker between the intake and the writer (issue 11, `KAFKA_BROKERS`):
 * devices publish over MQTT at QoS 1, the intake acknowledges once Kafka has the rows, the `timeseries-writer`
 * group stores them in chDB, and the history query gives back exactly what was published.
 */
let kafka: EngineHandle;
let sut: TestPlatform;
let token: string;
let mqttUrl: string;
const devices: { sn: string; id: string; secret: string }[] = [];
const clients: MqttClient[] = [];
const DEVICES = 4;
const MESSAGES = 60;
const t0 = Date.UTC(2026, 10, 1, 0, 0, 0);

function connect(sn: string, secret: string) {
  const client = mqtt.connect(mqttUrl, { username: sn, password: secret, clientId: `k-${sn}`, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  return new Promise<MqttClient>((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}

/** Message `i` of device `d`: a temperature with decimals and a counter, at its own millisecond. */
const sample = (d: number, i: number) => ({
  ts: t0 + i * 1000 + d,
  values: { temperature: Math.round((20 + d + i / 7) * 1000) / 1000, count: i },
});

type Series = { variable: string; points: { ts: string; value: number | null }[]; total: number };
const history = async (id: string, from: number, to: number): Promise<Series[]> =>
  ok(
    await sut.call('telemetry.history', {
      token,
      query: {
        id,
        variables: 'temperature,count',
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        pageSize: '5000',
      },
    }),
  );

/** The broker's process, by the port it listens on: stopped and continued to play a Kafka that does not answer. */
function brokerPid(url: string): number {
  const port = url.split(',')[0]!.split(':').at(-1);
  const listing = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(listing)?.[1];
  if (!pid) throw new Error(`no local process listens on ${url}: this test pauses the broker, so it needs a local one`);
  return Number(pid);
}

beforeAll(async () => {
  const resolved = await resolveEngine('Kafka', 'KAFKA_BROKERS', () => startKafka());
  if (!resolved.ok) throw new Error(resolved.reason);
  kafka = resolved.engine;
  sut = await startTestPlatform({ KAFKA_BROKERS: kafka.url });
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  await sut.seedTenant({ id: 'kilo', name: 'kiloCo', adminUsername: 'kiloAdmin', adminPassword: 'Kilo#pw1' });
  token = await sut.login('kiloAdmin', 'Kilo#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'KAFKA', code: 'KAFKA', type: 'direct' } })).id;
  for (const fn of [
    { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 125, unit: '°C' } },
    { type: 'property', name: '计数', identifier: 'count', dataType: { type: 'int', min: 0, max: 1_000_000 } },
  ])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  for (let d = 0; d < DEVICES + 1; d++) {
    const sn = `KAFKA-${d}`;
    const created = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId } }));
    devices.push({ sn, id: created.id, secret: created.secret });
  }
  await sut.platform.runner.catchUp();
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
  await kafka?.stop();
});

describe('telemetry pipeline through Kafka', () => {
  it('gives back from the history query exactly what devices published at QoS 1, no more and no less', async () => {
    const fleet = devices.slice(0, DEVICES);
    const fleetClients: MqttClient[] = [];
    await Promise.all(
      fleet.map(async (device, d) => {
        const client = await connect(device.sn, device.secret);
        fleetClients[d] = client;
        // Several in flight per device, as a real client keeps its window full.
        for (let i = 0; i < MESSAGES; i += 10) {
          await Promise.all(
            Array.from({ length: 10 }, (_, k) =>
              client.publishAsync(`devices/${device.sn}/telemetry`, JSON.stringify(sample(d, i + k)), { qos: 1 }),
            ),
          );
        }
      }),
    );
    for (const [d, device] of fleet.entries()) {
      const series = await waitFor(`device ${d}'s rows`, async () => {
        const got = await history(device.id, t0, t0 + MESSAGES * 1000);
        // The total and the page are two reads: a batch stored between them shows in one and not yet the other.
        return got.every((s) => s.total >= MESSAGES && s.points.length >= MESSAGES) ? got : null;
      });
      const expected = Array.from({ length: MESSAGES }, (_, i) => sample(d, i));
      const byVariable = Object.fromEntries(series.map((s) => [s.variable, s]));
      expect(byVariable.temperature!.total).toBe(MESSAGES);
      expect(byVariable.count!.total).toBe(MESSAGES);
      expect(byVariable.temperature!.points.map((p) => [p.ts, p.value])).toEqual(
        expected.map((s) => [new Date(s.ts).toISOString(), s.values.temperature]),
      );
      expect(byVariable.count!.points.map((p) => [p.ts, p.value])).toEqual(
        expected.map((s) => [new Date(s.ts).toISOString(), s.values.count]),
      );
    }
    // Once a later message of each device is stored (a device's messages keep their order), still the same counts: nothing was written twice.
    const later = t0 + MESSAGES * 1000;
    for (const [d, device] of fleet.entries()) {
      await fleetClients[d]!.publishAsync(
        `devices/${device.sn}/telemetry`,
        JSON.stringify({ ts: later + d, values: { count: MESSAGES } }),
        {
          qos: 1,
        },
      );
      await waitFor(`device ${d}'s later message`, async () =>
        (await history(device.id, later, later + 1000)).some((s) => s.variable === 'count' && s.total === 1),
      );
    }
    for (const device of fleet) {
      for (const s of await history(device.id, t0, later)) expect(s.total).toBe(MESSAGES);
    }
  });

  it('holds the QoS 1 acknowledgement while Kafka does not answer, and stores the message once it does', async () => {
    const device = devices[DEVICES]!;
    const client = await connect(device.sn, device.secret);
    await client.publishAsync(`devices/${device.sn}/telemetry`, JSON.stringify({ ts: t0, values: { count: 1 } }), { qos: 1 });
    const pid = brokerPid(kafka.url);
    process.kill(pid, 'SIGSTOP');
    let acked = false;
    let published: Promise<unknown>;
    try {
      const intake = sut.platform.ingest!.intake;
      const rows = intake.counters.rows;
      published = client
        .publishAsync(`devices/${device.sn}/telemetry`, JSON.stringify({ ts: t0 + 1000, values: { count: 2 } }), { qos: 1 })
        .then(() => (acked = true));
      // The row reached the writer that waits for Kafka; a round trip on the same connection comes back after any
      // acknowledgement the broker sent before it.
      await waitFor('the row at the writer', () => intake.counters.rows > rows, 10_000, 10);
      await client.subscribeAsync(`devices/${device.sn}/command/#`, { qos: 1 });
      expect(acked).toBe(false);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await published;
    expect(acked).toBe(true);
    const [series] = await waitFor('the held message stored', async () => {
      const got = await history(device.id, t0, t0 + 2000);
      // Points and total are two reads: wait until both show the second row.
      const count = got.filter((s) => s.variable === 'count');
      return count[0]?.total === 2 && count[0].points.length === 2 ? count : null;
    });
    expect(series!.points.map((p) => p.value)).toEqual([1, 2]);
  });
});
