import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/process.ts';
import { startTestPlatform, ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';

/**
 * MQTT sessions on the embedded broker last only as long as the device's right to them (issue 24): disabled,
 * re-keyed, deleted or of a stopped tenant, a device's open sessions are cut at once, it shows offline, and it is
 * not let in again, even while the read model still lags the change. A client id is the device's own: a device of
 * another tenant reusing it takes nothing over.
 */
let sut: TestPlatform;
let mqttUrl: string;
let token: string;
let sierraToken: string;
let admin: string;
let productId: string;
let sierraProductId: string;
const clients: MqttClient[] = [];

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

/** A device connection as firmware opens it, with what reaches it and whether it was closed. */
async function connect(
  username: string,
  password: string | undefined,
  clientId = `c-${Math.random().toString(36).slice(2)}`,
  protocolVersion: 4 | 5 = 4,
) {
  const client = mqtt.connect(mqttUrl, { username, password, clientId, protocolVersion, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  await new Promise((resolve, reject) => client.once('connect', resolve).once('error', reject));
  const session = { client, closed: false, got: [] as Array<{ topic: string; body: string }>, reasonCode: undefined as number | undefined };
  client.on('close', () => (session.closed = true));
  // MQTT 5: the server's DISCONNECT says why it closes.
  client.on('disconnect', (packet) => (session.reasonCode = packet.reasonCode));
  client.on('message', (topic, payload) => session.got.push({ topic, body: payload.toString() }));
  return session;
}
const refused = (username: string, password: string | undefined) =>
  connect(username, password).then(
    (s) => (s.client.end(true), false),
    () => true,
  );

async function createDevice(sn: string, as = token, product = productId) {
  const d = ok(await sut.call('device.create', { token: as, body: { sn, name: sn, productId: product } }));
  return { id: d.id as string, secret: d.secret as string, sn };
}
const listed = async (sn: string, as = token) =>
  (ok(await sut.call('device.list', { token: as, query: { sn } })).rows as Array<{ enabled: boolean; status: string }>)[0];
/** A property value sent to the device now: what a session of it receives, and nobody else's. */
const setDesired = async (id: string, value: number, as = token) =>
  ok(await sut.call('device.setDesired', { token: as, body: { id, identifier: 'setpoint', value } }));

async function product(as: string, type = 'direct') {
  const code = `SESS-${type.toUpperCase()}`;
  const id = ok(await sut.call('product.create', { token: as, body: { name: code, code, type } })).id;
  for (const fn of [
    { type: 'property', name: 'setpoint', identifier: 'setpoint', access: 'rw', dataType: { type: 'float', min: 0, max: 100 } },
    { type: 'property', name: 'temperature', identifier: 'temperature', dataType: { type: 'float' } },
  ])
    ok(await sut.call('product.defineFunction', { token: as, body: { productId: id, function: fn } }));
  ok(await sut.call('product.publish', { token: as, body: { id } }));
  return id as string;
}

beforeAll(async () => {
  sut = await startTestPlatform();
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  await sut.seedTenant({ id: 'romeo', name: 'romeoCo', adminUsername: 'romeoAdmin', adminPassword: 'Romeo#pw1' });
  await sut.seedTenant({ id: 'sierra', name: 'sierraCo', adminUsername: 'sierraAdmin', adminPassword: 'Sierra#pw1' });
  token = await sut.login('romeoAdmin', 'Romeo#pw1');
  sierraToken = await sut.login('sierraAdmin', 'Sierra#pw1');
  admin = await sut.login('admin', ADMIN_PASSWORD);
  productId = await product(token);
  sierraProductId = await product(sierraToken);
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

describe('a device’s sessions end with its right to them', () => {
  it('cuts every session of a disabled device at once, shows it offline, refuses it, and lets it in again once enabled', async () => {
    const d = await createDevice('SESS-DIS');
    const own = await connect(d.sn, d.secret);
    const asToken = await connect(d.secret, undefined);
    await own.client.publishAsync(`devices/${d.sn}/telemetry`, JSON.stringify({ temperature: 20 }), { qos: 1 });
    await waitFor('the device online', async () => (await listed(d.sn))?.status === 'online', 10_000);

    ok(await sut.call('device.disable', { token, body: { id: d.id } }));
    await waitFor('both sessions cut', async () => own.closed && asToken.closed, 5_000);
    await waitFor('the device offline', async () => (await listed(d.sn))?.status === 'offline', 5_000);
    expect(await listed(d.sn)).toMatchObject({ enabled: false, status: 'offline' });
    expect(await refused(d.sn, d.secret)).toBe(true);
    expect(await refused(d.secret, undefined)).toBe(true);

    ok(await sut.call('device.enable', { token, body: { id: d.id } }));
    await waitFor('the enabled device let in', async () => !(await refused(d.sn, d.secret)), 5_000);
  });

  it('cuts the sessions of the old secret and the old token when the secret is rotated; the new one connects', async () => {
    const d = await createDevice('SESS-ROT');
    const own = await connect(d.sn, d.secret);
    const asToken = await connect(d.secret, undefined);
    const rotated = ok(await sut.call('device.rotateSecret', { token, body: { id: d.id } })).secret as string;
    await waitFor('both sessions cut', async () => own.closed && asToken.closed, 5_000);
    expect(await refused(d.sn, d.secret)).toBe(true);
    expect(await refused(d.secret, undefined)).toBe(true);
    const fresh = await connect(d.sn, rotated);
    await fresh.client.subscribeAsync(`devices/${d.sn}/command/+`, { qos: 1 });
    await setDesired(d.id, 11);
    await waitFor('the new session’s downlink', async () => fresh.got.length === 1, 5_000);
    expect(fresh.closed).toBe(false);
  });

  it('cuts the sessions of a deleted device', async () => {
    const d = await createDevice('SESS-DEL');
    const own = await connect(d.sn, d.secret);
    ok(await sut.call('device.delete', { query: { id: d.id }, token }));
    await waitFor('the session cut', async () => own.closed, 5_000);
    expect(await refused(d.sn, d.secret)).toBe(true);
  });

  it('tells an MQTT 5 device whose session is cut that it is not authorised (0x87), not that its session was taken over', async () => {
    const d = await createDevice('SESS-V5');
    const own = await connect(d.sn, d.secret, undefined, 5);
    ok(await sut.call('device.disable', { token, body: { id: d.id } }));
    await waitFor('the session cut', async () => own.closed, 5_000);
    expect(own.reasonCode).toBe(0x87);
  });

  it('cuts every session of a stopped tenant and none of another tenant', async () => {
    const mine = await createDevice('SESS-TEN');
    const theirs = await createDevice('SESS-OTHER', sierraToken, sierraProductId);
    const own = await connect(mine.sn, mine.secret);
    const other = await connect(theirs.sn, theirs.secret);
    await other.client.subscribeAsync(`devices/${theirs.sn}/command/+`, { qos: 1 });
    const romeoId = 'romeo';
    ok(await sut.call('tenant.stop', { token: admin, body: { id: romeoId } }));
    try {
      await waitFor('the stopped tenant’s session cut', async () => own.closed, 5_000);
      expect(await refused(mine.sn, mine.secret)).toBe(true);
      // The other tenant's device is still connected: a value sent to it after the stop reaches it.
      await setDesired(theirs.id, 12, sierraToken);
      await waitFor('the other tenant’s downlink', async () => other.got.length === 1, 5_000);
      expect(other.closed).toBe(false);
    } finally {
      ok(await sut.call('tenant.start', { token: admin, body: { id: romeoId } }));
    }
    await waitFor('the started tenant’s device let in', async () => !(await refused(mine.sn, mine.secret)), 5_000);
  });

  it('records a disabled gateway’s sub-devices offline with it', async () => {
    const gateway = ok(
      await sut.call('device.create', {
        token,
        body: { sn: 'SESS-GW', name: 'SESS-GW', productId: await product(token, 'gateway') },
      }),
    );
    await sut.platform.runner.catchUp();
    const subProduct = await product(token, 'subDevice');
    ok(
      await sut.call('device.create', {
        token,
        body: { sn: 'SESS-SUB', name: 'SESS-SUB', productId: subProduct, gatewayId: gateway.id },
      }),
    );
    await sut.platform.runner.catchUp();
    const own = await connect('SESS-GW', gateway.secret);
    await own.client.publishAsync('gateways/SESS-GW/telemetry', JSON.stringify({ 'SESS-SUB': { temperature: 3 } }), { qos: 1 });
    await waitFor('the sub-device online', async () => (await listed('SESS-SUB'))?.status === 'online', 10_000);
    ok(await sut.call('device.disable', { token, body: { id: gateway.id } }));
    await waitFor('the gateway cut', async () => own.closed, 5_000);
    await waitFor('the sub-device offline', async () => (await listed('SESS-SUB'))?.status === 'offline', 5_000);
  });

  it('does not let a cut device in again while the read model still shows it enabled', async () => {
    const d = await createDevice('SESS-LAG');
    await sut.platform.runner.catchUp();
    const own = await connect(d.sn, d.secret);
    // The projections stop: the disable is in the log, the read model does not know of it (the route answers after its wait).
    await sut.platform.runner.stopAll();
    try {
      ok(await sut.call('device.disable', { token, body: { id: d.id } }));
      await waitFor('the session cut', async () => own.closed, 5_000);
      const row = await sut.db.pool.query<{ enabled: boolean }>('select enabled from rm_devices where id = $1', [d.id]);
      expect(row.rows[0]!.enabled).toBe(true);
      expect(await refused(d.sn, d.secret)).toBe(true);
      expect(await refused(d.secret, undefined)).toBe(true);
    } finally {
      await sut.platform.runner.startAll();
    }
  });
});

describe('client ids', () => {
  it('lets a device of another tenant use the same client id without taking the first one’s session over', async () => {
    const mine = await createDevice('SESS-ID-A');
    const theirs = await createDevice('SESS-ID-B', sierraToken, sierraProductId);
    const first = await connect(mine.sn, mine.secret, 'meter-1');
    await first.client.subscribeAsync(`devices/${mine.sn}/command/+`, { qos: 1 });
    const second = await connect(theirs.sn, theirs.secret, 'meter-1');
    await second.client.subscribeAsync(`devices/${theirs.sn}/command/+`, { qos: 1 });
    // Both sessions live: each gets what is sent to its own device after the other connected.
    await setDesired(mine.id, 21);
    await setDesired(theirs.id, 22, sierraToken);
    await waitFor('both downlinks', async () => first.got.length === 1 && second.got.length === 1, 5_000);
    expect(first.closed).toBe(false);
    expect(second.closed).toBe(false);
    expect(JSON.parse(first.got[0]!.body)).toMatchObject({ params: { value: 21 } });
    expect(JSON.parse(second.got[0]!.body)).toMatchObject({ params: { value: 22 } });
  });

  it('lets a device take over its own older session with its own client id', async () => {
    const d = await createDevice('SESS-ID-C');
    const older = await connect(d.sn, d.secret, 'meter-2');
    const newer = await connect(d.sn, d.secret, 'meter-2');
    await waitFor('the older session taken over', async () => older.closed, 5_000);
    expect(newer.closed).toBe(false);
  });

  it('tells an MQTT 5 device whose own client id connected again that its session was taken over (0x8E)', async () => {
    const d = await createDevice('SESS-ID-V5');
    const older = await connect(d.sn, d.secret, 'meter-5', 5);
    await connect(d.sn, d.secret, 'meter-5', 5);
    await waitFor('the older session taken over', async () => older.closed, 5_000);
    expect(older.reasonCode).toBe(0x8e);
  });
});
