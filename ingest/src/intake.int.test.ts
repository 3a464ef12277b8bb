import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { thingFunction, type DeviceEvent, type NodeType, type ProductEvent, type TenantEvent } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { devicesProjection } from '@iot/projections/device/devices.ts';
import { productsProjection } from '@iot/projections/device/products.ts';
import { templatesProjection } from '@iot/projections/device/templates.ts';
import type { AnyProjection } from '@iot/projections/projection.ts';
import { tenantsProjection } from '@iot/projections/tenant/tenants.ts';
import { createTestDatabase, type TestDatabase } from '../../tests/harness/postgres.ts';
import { createIntake, SessionEnded, type DeadLetter } from './intake.ts';
import { createDeviceRegistry, type DeviceRef } from './registry.ts';
import { createDeviceDirectory } from '@iot/infra/read-models/device-directory.ts';

/** The intake over the real device registry (read models in a fresh PostgreSQL), a sink that keeps what it is given. */
let db: TestDatabase;
let position = 0;

/** A read model given an event, as its projection applies it from the log. */
async function given<E extends DeviceEvent | ProductEvent | TenantEvent>(projection: AnyProjection, tenantId: string, event: E) {
  await projection.apply(db.pool, {
    id: randomUUID(),
    streamName: `test-${tenantId}.${randomUUID()}`,
    version: 1,
    type: event.type,
    data: event.data,
    metadata: {
      tenantId,
      actor: { kind: 'user', id: 'u1' },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
    position: String(++position),
    recordedAt: new Date(),
  });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const model = [
  { type: 'property', name: 'Temperature', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 125 } },
  { type: 'property', name: 'Humidity', identifier: 'humidity', dataType: { type: 'int', min: 0, max: 100 } },
  { type: 'event', name: 'Overheat', identifier: 'overheat' },
].map((f) => thingFunction.parse(f));

const devices = new Map<string, { id: string; secret: string }>();
async function device(tenantId: string, sn: string, nodeType: NodeType, gatewayId: string | null = null) {
  const id = randomUUID();
  const secret = randomUUID();
  devices.set(sn, { id, secret });
  await given(devicesProjection, tenantId, {
    type: 'DeviceCreated',
    data: {
      deviceId: id,
      sn,
      name: `${sn} name`,
      productId: 'p1',
      modelVersion: 1,
      nodeType,
      groupId: 'g1',
      gatewayId,
      location: { lng: null, lat: null, address: null },
      version: null,
      tags: [],
      remark: null,
      secretHash: sha256(secret),
    },
  });
  return id;
}
const idOf = (sn: string) => devices.get(sn)!.id;
const secretOf = (sn: string) => devices.get(sn)!.secret;

beforeAll(async () => {
  db = await createTestDatabase();
  for (const projection of [tenantsProjection, productsProjection, templatesProjection, devicesProjection])
    await db.pool.query(projection.schema);
  for (const [tenantId, approved] of [
    ['t1', true],
    ['t2', false],
  ] as const) {
    await given(tenantsProjection, tenantId, {
      type: 'TenantRegistered',
      data: { tenantId, name: tenantId, contactName: 'c', company: 'c', method: 'email', phone: null, email: null },
    });
    if (approved) await given(tenantsProjection, tenantId, { type: 'TenantApproved', data: { tenantId, adminUserId: 'u1' } });
  }
  const fields = {
    name: 'Sensor',
    code: 'sensor',
    type: 'direct',
    category: null,
    version: null,
    company: null,
    model: null,
    manufacturer: null,
    protocol: 'mqtt',
    description: null,
  } as const;
  await given(productsProjection, 't1', {
    type: 'ProductCreated',
    data: { productId: 'p1', key: 'k1', fields, functions: model, copiedFrom: null },
  });
  await given(productsProjection, 't1', { type: 'ProductPublished', data: { productId: 'p1', version: 1, functions: model } });
  await device('t1', 'S1', 'direct');
  await device('t1', 'S2', 'direct');
  const gateway = await device('t1', 'G1', 'gateway');
  await device('t1', 'C1', 'subDevice', gateway);
  await device('t1', 'OFF1', 'direct');
  await given(devicesProjection, 't1', { type: 'DeviceDisabled', data: { deviceId: idOf('OFF1') } });
  await device('t2', 'PENDING1', 'direct');
});
afterAll(async () => {
  await db?.drop();
});

let written: TelemetryRow[][];
let letters: DeadLetter[];
let seen: string[];
let stored: Array<{ device: DeviceRef; rows: TelemetryRow[] }>;
let intake: ReturnType<typeof createIntake>;
const now = Date.parse('2025-05-03T14:02:00.000Z');
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

beforeEach(() => {
  written = [];
  letters = [];
  seen = [];
  stored = [];
  intake = createIntake({
    registry: createDeviceRegistry(createDeviceDirectory(db.pool)),
    sink: { write: async (rows) => void written.push(rows) },
    deadLetters: (letter) => letters.push(letter),
    onConnect: (d) => seen.push(`connect ${d.sn}`),
    onDisconnect: (d) => seen.push(`disconnect ${d.sn}`),
    onSubscribe: (d, filter) => seen.push(`subscribe ${d.sn} ${filter}`),
    onEvent: (d, identifier, payload, ts) => seen.push(`event ${d.sn} ${identifier} ${JSON.stringify(payload)} ${ts.toISOString()}`),
    onReply: (d, messageId, payload) => seen.push(`reply ${d.sn} ${messageId} ${JSON.stringify(payload)}`),
    onStored: (d, rows) => stored.push({ device: d, rows }),
    now: () => now,
  });
});

/** Connects `sn` with its own secret under `clientId`: the session id its messages carry. */
async function session(sn: string, clientId = `client-${sn}`, connectionId = 1) {
  const connected = await intake.connect(clientId, connectionId, sn, secretOf(sn));
  if (!connected) throw new Error(`${sn} not let in`);
  return connected.sessionId;
}

describe('intake: who may connect', () => {
  it('lets a device in with its SN and secret, or with its secret alone as a ThingsBoard access token', async () => {
    const bySn = await intake.connect('a', 1, 'S1', secretOf('S1'));
    expect(bySn).toEqual({
      device: expect.objectContaining({ deviceId: idOf('S1'), tenantId: 't1', sn: 'S1' }),
      sessionId: `${idOf('S1')}/a`,
    });
    const byToken = await intake.connect('b', 1, secretOf('S2'), undefined);
    expect(byToken?.device.sn).toBe('S2');
    expect(seen).toEqual(['connect S1', 'connect S2']);
  });

  it('refuses a wrong secret, another device’s secret, no username, a disabled device and a device of a tenant not approved', async () => {
    expect(await intake.connect('a', 1, 'S1', 'wrong')).toBeNull();
    expect(await intake.connect('a', 1, 'S1', secretOf('S2'))).toBeNull();
    expect(await intake.connect('a', 1, undefined, secretOf('S1'))).toBeNull();
    expect(await intake.connect('a', 1, 'OFF1', secretOf('OFF1'))).toBeNull();
    expect(await intake.connect('a', 1, 'PENDING1', secretOf('PENDING1'))).toBeNull();
    expect(intake.sessions.size).toBe(0);
    expect(seen).toEqual([]);
  });

  it('keeps a client id within its device: another device connecting with the same id has a session of its own', async () => {
    const first = await session('S1', 'same');
    const second = await session('S2', 'same');
    expect(first).not.toBe(second);
    intake.disconnect(second, 1);
    expect(intake.sessionOf(idOf('S1'))?.clientId).toBe(first);
    expect(intake.sessionOf(idOf('S2'))).toBeNull();
  });

  it('ends a session only at the end of its newest connection (a reconnect takes the client id over)', async () => {
    const id = await session('S1', 'c', 1);
    expect(await session('S1', 'c', 2)).toBe(id);
    intake.disconnect(id, 1);
    expect(intake.sessionOf(idOf('S1'))).toMatchObject({ clientId: id, connectionId: 2 });
    intake.disconnect(id, 2);
    expect(intake.sessionOf(idOf('S1'))).toBeNull();
    expect(seen).toEqual(['connect S1', 'connect S1', 'disconnect S1']);
  });

  it('keeps an unknown SN as a miss for a moment only: a device created after its first attempt is let in at a later one', async () => {
    // Nothing follows the log's DeviceCreated: the miss itself runs out (2 s by default).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      expect(await intake.connect('late', 1, 'LATE1', 'not yet')).toBeNull();
      await device('t1', 'LATE1', 'direct');
      expect(await intake.connect('late', 1, 'LATE1', secretOf('LATE1'))).toBeNull();
      vi.setSystemTime(Date.now() + 2_001);
      expect((await intake.connect('late', 1, 'LATE1', secretOf('LATE1')))?.device.sn).toBe('LATE1');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('intake: the topics a session may use', () => {
  it('lets a device publish on its own topics only', async () => {
    const id = await session('S1');
    expect(intake.mayPublish(id, 'devices/S1/telemetry')).toBe(true);
    expect(intake.mayPublish(id, 'devices/S1/events/overheat')).toBe(true);
    expect(intake.mayPublish(id, 'v1/devices/me/telemetry')).toBe(true);
    expect(intake.mayPublish(id, 'devices/S2/telemetry')).toBe(false);
    expect(intake.mayPublish(id, 'gateways/S2/telemetry')).toBe(false);
    expect(intake.mayPublish('no-session', 'devices/S1/telemetry')).toBe(false);
  });

  it('lets a device subscribe to its own downlink only, and the gateway API to gateways only', async () => {
    const sensor = await session('S1');
    const gateway = await session('G1');
    expect(intake.maySubscribe(sensor, 'devices/S1/command/+')).toBe(true);
    expect(intake.maySubscribe(sensor, 'devices/S2/command/+')).toBe(false);
    expect(intake.maySubscribe(sensor, 'v1/gateway/rpc')).toBe(false);
    expect(intake.maySubscribe(gateway, 'v1/gateway/rpc')).toBe(true);
    expect(intake.maySubscribe('no-session', 'devices/S1/command/+')).toBe(false);
    expect(seen.filter((s) => s.startsWith('subscribe'))).toEqual(['subscribe S1 devices/S1/command/+', 'subscribe G1 v1/gateway/rpc']);
  });
});

describe('intake: device messages', () => {
  it('stores the values that fit the thing model and keeps the others as a dead letter of the device', async () => {
    const id = await session('S1');
    await intake.handle({
      topic: 'devices/S1/telemetry',
      payload: json({ temperature: 21.5, humidity: 140, colour: 'red' }),
      qos: 1,
      clientId: id,
    });
    expect(written).toEqual([
      [{ tenantId: 't1', deviceId: idOf('S1'), productId: 'p1', variable: 'temperature', ts: new Date(now), value: 21.5, text: null }],
    ]);
    expect(stored).toEqual([{ device: expect.objectContaining({ sn: 'S1' }), rows: written[0] }]);
    expect(letters).toEqual([
      expect.objectContaining({
        tenantId: 't1',
        deviceId: idOf('S1'),
        sn: 'S1',
        topic: 'devices/S1/telemetry',
        reason: 'refused values: humidity (wrong type or out of range), colour (unknown identifier)',
      }),
    ]);
    expect(intake.counters).toMatchObject({ messages: 1, rows: 1, rejectedValues: 2, deadLetters: 1, qos0: 0 });
  });

  it('takes the time a sample carries, and keeps a message that is not JSON or out of time as a dead letter, storing nothing', async () => {
    const id = await session('S1');
    const ts = now - 60_000;
    await intake.handle({ topic: 'v1/devices/me/telemetry', payload: json([{ ts, values: { humidity: 40 } }]), qos: 0, clientId: id });
    expect(written).toEqual([[expect.objectContaining({ variable: 'humidity', value: 40, ts: new Date(ts) })]]);
    written = [];
    await intake.handle({ topic: 'devices/S1/telemetry', payload: Buffer.from('{"temperature":'), qos: 1, clientId: id });
    await intake.handle({
      topic: 'devices/S1/telemetry',
      payload: json({ ts: now + 2 * 86_400_000, values: { humidity: 40 } }),
      qos: 1,
      clientId: id,
    });
    expect(letters.map((l) => [l.deviceId, l.reason, l.payload])).toEqual([
      [idOf('S1'), 'not JSON', '{"temperature":'],
      [idOf('S1'), 'ts out of range', JSON.stringify({ ts: now + 2 * 86_400_000, values: { humidity: 40 } })],
    ]);
    expect(written).toEqual([]);
    expect(intake.counters).toMatchObject({ messages: 3, qos0: 1, rows: 1 });
  });

  it('takes a message that names its device by SN without a session (an external broker), and drops an unknown or disabled one', async () => {
    await intake.handle({ topic: 'devices/S2/telemetry', payload: json({ temperature: 19 }), qos: 1 });
    expect(written).toEqual([[expect.objectContaining({ deviceId: idOf('S2'), variable: 'temperature', value: 19 })]]);
    await intake.handle({ topic: 'devices/NOSUCH/telemetry', payload: json({ temperature: 19 }), qos: 1 });
    await intake.handle({ topic: 'devices/OFF1/telemetry', payload: json({ temperature: 19 }), qos: 1 });
    expect(letters.map((l) => [l.deviceId, l.topic, l.reason])).toEqual([
      [null, 'devices/NOSUCH/telemetry', 'unknown or disabled device'],
      [null, 'devices/OFF1/telemetry', 'unknown or disabled device'],
    ]);
    expect(written).toHaveLength(1);
  });

  it("stores a gateway's readings under each of its sub-devices (by SN, or by name for ThingsBoard gateways) and refuses a device not behind it", async () => {
    const id = await session('G1');
    await intake.handle({
      topic: 'gateways/G1/telemetry',
      payload: json({ C1: { temperature: 20 }, S1: { temperature: 30 } }),
      qos: 1,
      clientId: id,
    });
    await intake.handle({
      topic: 'v1/gateway/telemetry',
      payload: json({ 'C1 name': [{ ts: now, values: { humidity: 55 } }] }),
      qos: 1,
      clientId: id,
    });
    expect(written.flat().map((r) => [r.deviceId, r.variable, r.value])).toEqual([
      [idOf('C1'), 'temperature', 20],
      [idOf('C1'), 'humidity', 55],
    ]);
    expect(stored.map((s) => s.device.sn)).toEqual(['C1', 'C1']);
    expect(letters.map((l) => [l.deviceId, l.reason])).toEqual([[idOf('G1'), 'S1 is not a sub-device of this gateway']]);
  });

  it('refuses gateway readings from a device that is not a gateway', async () => {
    const id = await session('S1');
    await intake.handle({ topic: 'v1/gateway/telemetry', payload: json({ C1: { temperature: 20 } }), qos: 1, clientId: id });
    expect(letters.map((l) => [l.deviceId, l.reason])).toEqual([[idOf('S1'), 'not a gateway']]);
    expect(written).toEqual([]);
  });

  it('hands thing-model events and command replies to their handlers, with the device that sent them', async () => {
    const id = await session('S1');
    await intake.handle({ topic: 'devices/S1/events/overheat', payload: json({ temperature: 90 }), qos: 1, clientId: id });
    await intake.handle({ topic: 'devices/S1/reply/m1', payload: json({ ok: true }), qos: 1, clientId: id });
    await intake.handle({ topic: 'v1/devices/me/rpc/response/7', payload: json({ done: 1 }), qos: 1, clientId: id });
    expect(seen.slice(1)).toEqual([
      `event S1 overheat {"temperature":90} ${new Date(now).toISOString()}`,
      'reply S1 m1 {"ok":true}',
      'reply S1 7 {"done":1}',
    ]);
    expect(written).toEqual([]);
  });

  it('refuses what a session still sends once its device lost the right to it, and stores none of it', async () => {
    const cutOff = await session('S1');
    const other = await session('S2');
    expect(intake.cut((d) => d.deviceId === idOf('S1'))).toEqual([{ sessionId: cutOff, device: expect.objectContaining({ sn: 'S1' }) }]);
    expect(seen).toContain('disconnect S1');
    await expect(
      intake.handle({ topic: 'devices/S1/telemetry', payload: json({ temperature: 1 }), qos: 1, clientId: cutOff }),
    ).rejects.toThrow(SessionEnded);
    await intake.handle({ topic: 'devices/S2/telemetry', payload: json({ temperature: 2 }), qos: 1, clientId: other });
    expect(written.flat().map((r) => r.deviceId)).toEqual([idOf('S2')]);
  });

  it('carries a change of the device (moved to another group) into what its open session reports from then on', async () => {
    const id = await session('S1');
    intake.update(idOf('S1'), { groupId: 'g2' });
    await intake.handle({ topic: 'devices/S1/telemetry', payload: json({ temperature: 3 }), qos: 1, clientId: id });
    expect(stored.map((s) => s.device.groupId)).toEqual(['g2']);
  });

  it('takes HTTP reports by the same thing-model rules, answering what it took and what it refused', async () => {
    const registry = createDeviceRegistry(createDeviceDirectory(db.pool));
    const sensor = await registry.authenticate('S2', secretOf('S2'));
    expect(await intake.handleHttp(sensor!, { temperature: 22, humidity: 500 })).toEqual({
      accepted: 1,
      rejected: [{ identifier: 'humidity', reason: 'wrong type or out of range' }],
    });
    expect(written).toEqual([[expect.objectContaining({ deviceId: idOf('S2'), variable: 'temperature', value: 22 })]]);
    expect(stored).toHaveLength(1);
    expect(letters.map((l) => [l.deviceId, l.topic, l.reason])).toEqual([
      [idOf('S2'), 'devices/S2/telemetry', 'refused values: humidity (wrong type or out of range)'],
    ]);
  });
});
