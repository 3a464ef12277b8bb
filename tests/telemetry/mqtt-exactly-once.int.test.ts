import { mkdtemp, rm } from 'node:fs/promises';
import { connect as tcpConnect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import mqttPacket from 'mqtt-packet';
import { connectAsync } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { resolveEngine } from '../harness/engines.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { freePort } from '../harness/free-port.ts';
import { startMosquitto } from '../harness/mosquitto.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { onboardTenant, startProcess, waitFor, type PlatformProcess } from '../harness/process.ts';

/**
 * Exactly-once on the MQTT path without Kafka (issue 23): the platform process is killed between a batch's insert
 * and its PUBACK (FAULT_CRASH_AFTER_INSERT), the message comes again after the restart, and the store holds it
 * once. Over the embedded broker the device resends it (with the DUP flag, then as MQTT.js does, without);
 * over Mosquitto the broker redelivers it to the platform's persistent session.
 */
let db: TestDatabase;
const dirs: string[] = [];
const running: PlatformProcess[] = [];

const mosquitto = await resolveEngine('Mosquitto', 'MQTT_URL', () => startMosquitto());

beforeAll(async () => {
  db = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  for (const p of running) await p.stop().catch(() => undefined);
  await db?.drop();
  if (mosquitto.ok) await mosquitto.engine.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function start(dataDir: string, env: Record<string, string>): Promise<PlatformProcess> {
  const p = await startProcess(db, dataDir, env);
  running.push(p);
  return p;
}

/** A tenant with a product of one property `count`, and a device of it; the token of the tenant's administrator. */
async function fleetOn(p: PlatformProcess, name: string) {
  const api = fetchClient(p.url);
  await onboardTenant(p, db, name, 'Tenant#pw1');
  const token = await waitFor('the tenant administrator', async () => {
    const r = await api.call('auth.login', { body: { account: name, password: 'Tenant#pw1', agreement: true } });
    return r.status === 200 ? (r.json!.data.token as string) : null;
  });
  const productId = ok(await api.call('product.create', { token, body: { name: 'meter', code: `${name}-METER`, type: 'direct' } })).id;
  ok(
    await api.call('product.defineFunction', {
      token,
      body: {
        productId,
        function: { type: 'property', name: '计数', identifier: 'count', dataType: { type: 'int', min: 0, max: 1_000_000 } },
      },
    }),
  );
  ok(await api.call('product.publish', { token, body: { id: productId } }));
  const sn = `${name}-1`;
  const device = ok(await api.call('device.create', { token, body: { sn, name: sn, productId } }));
  return { token, sn, id: device.id, secret: device.secret };
}

/** Every stored value of the device's `count`, in time order. */
async function countsOf(p: PlatformProcess, fleet: { token: string; id: string }, from: string): Promise<number[]> {
  const to = new Date(Date.now() + 60_000).toISOString();
  const answer = ok(
    await fetchClient(p.url).call('telemetry.history', {
      token: fleet.token,
      query: { id: fleet.id, variables: 'count', from, to, pageSize: 1000 },
    }),
  );
  return (answer[0]?.points ?? []).map((point) => point.value!);
}

/**
 * A device on a raw socket, so that the test says what a resend looks like (packet id, DUP flag): `publish`
 * resolves with `acked` once its PUBACK comes, or `closed` once the connection ends without one.
 */
async function rawDevice(port: number, sn: string, secret: string) {
  const socket: Socket = tcpConnect(port, '127.0.0.1');
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  const waiting = new Map<number, (outcome: 'acked') => void>();
  let connack: (code: number) => void = () => undefined;
  const closed = new Promise<'closed'>((resolve) => socket.once('close', () => resolve('closed')));
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => parser.parse(chunk));
  parser.on('packet', (packet) => {
    if (packet.cmd === 'connack') connack(packet.returnCode ?? 0);
    if (packet.cmd === 'puback') waiting.get(packet.messageId!)?.('acked');
  });
  const code = await new Promise<number>((resolve, reject) => {
    connack = resolve;
    void closed.then(() => reject(new Error('connection closed before CONNACK')));
    socket.write(
      mqttPacket.generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: false,
        keepalive: 60,
        clientId: sn,
        username: sn,
        password: Buffer.from(secret),
      }),
    );
  });
  expect(code).toBe(0);
  return {
    publish(messageId: number, count: number, dup: boolean): Promise<'acked' | 'closed'> {
      const acked = new Promise<'acked'>((resolve) => waiting.set(messageId, resolve));
      socket.write(
        mqttPacket.generate({
          cmd: 'publish',
          topic: `devices/${sn}/telemetry`,
          payload: Buffer.from(JSON.stringify({ count })),
          qos: 1,
          messageId,
          dup,
          retain: false,
        }),
      );
      return Promise.race([acked, closed]);
    },
    end: () => socket.destroy(),
  };
}

describe('exactly-once on the MQTT path across a crash between the insert and the PUBACK', () => {
  it('embedded broker: the device resends (with DUP, then without) and each value is stored once', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dc-once-aedes-'));
    dirs.push(dir);
    const mqttPort = String(await freePort());
    const from = new Date(Date.now() - 60_000).toISOString();
    const first = await start(dir, { MQTT_PORT: mqttPort, FAULT_CRASH_AFTER_INSERT: '1' });
    const fleet = await fleetOn(first, 'onceAedes');

    let device = await rawDevice(Number(mqttPort), fleet.sn, fleet.secret);
    // Stored, then the process dies before the PUBACK.
    expect(await device.publish(7, 41, false)).toBe('closed');
    expect(await first.exited).toBe('SIGKILL');

    // The journal says 41 is stored: the resend (DUP) is acknowledged and not stored again; 42 is stored and the
    // process dies again before its PUBACK.
    const second = await start(dir, { MQTT_PORT: mqttPort, FAULT_CRASH_AFTER_INSERT: '1' });
    device = await rawDevice(Number(mqttPort), fleet.sn, fleet.secret);
    expect(await device.publish(7, 41, true)).toBe('acked');
    expect(await device.publish(8, 42, false)).toBe('closed');
    expect(await second.exited).toBe('SIGKILL');

    // A client that resends without the DUP flag (MQTT.js does): matched against the last run's final seconds.
    const third = await start(dir, { MQTT_PORT: mqttPort });
    device = await rawDevice(Number(mqttPort), fleet.sn, fleet.secret);
    expect(await device.publish(8, 42, false)).toBe('acked');
    // A new message reusing the packet id with another payload is new.
    expect(await device.publish(8, 43, false)).toBe('acked');
    device.end();

    const counts = await waitFor('the three values', async () => {
      const values = await countsOf(third, fleet, from);
      return values.length >= 3 && values;
    });
    expect(counts).toEqual([41, 42, 43]);
  }, 600_000);
});

// Under CI=true a broker that cannot be had fails the file (resolveEngine); elsewhere the suite says it is not run.
if (!mosquitto.ok) console.info(`The Mosquitto exactly-once suite is not run: ${mosquitto.reason}`);
else
  describe('exactly-once over Mosquitto across a crash between the insert and the PUBACK', () => {
    it('the broker redelivers to the persistent session and each value is stored once', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'dc-once-mosq-'));
      dirs.push(dir);
      const env = { MQTT_URL: mosquitto.engine.url, MQTT_CLIENT_ID: `once-${Date.now()}`, MQTT_SHARE_GROUP: `once-${Date.now()}` };
      const from = new Date(Date.now() - 60_000).toISOString();
      const first = await start(dir, { ...env, FAULT_CRASH_AFTER_INSERT: '1' });
      const fleet = await fleetOn(first, 'onceMosq');
      const device = await connectAsync(mosquitto.engine.url, { clientId: fleet.sn, reconnectPeriod: 0 });
      try {
        // Mosquitto acknowledges the device; the platform stores the value and dies before its own PUBACK.
        await device.publishAsync(`devices/${fleet.sn}/telemetry`, JSON.stringify({ count: 51 }), { qos: 1 });
        expect(await first.exited).toBe('SIGKILL');

        // The same session again: Mosquitto redelivers 51 (DUP), which the journal holds; 52 is new.
        const second = await start(dir, env);
        await device.publishAsync(`devices/${fleet.sn}/telemetry`, JSON.stringify({ count: 52 }), { qos: 1 });
        const counts = await waitFor('both values', async () => {
          const values = await countsOf(second, fleet, from);
          return values.length >= 2 && values;
        });
        expect(counts).toEqual([51, 52]);
      } finally {
        device.end(true);
      }
    }, 600_000);
  });
