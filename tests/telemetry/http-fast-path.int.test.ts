import { routes } from '@iot/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok } from '../harness/api.ts';

/**
 * The HTTP ingest over a real socket (issue 23): its requests are served before Fastify's routing, so the answers a
 * device gets there must be the route's own (Fastify's, through inject), refusals in the envelope, a change of the
 * device's credentials at once, and every acknowledged value stored.
 */
/** An answer's data, success or error, read by field. */
type Envelope = any;
let sut: TestPlatform;
let token: string;
let device: { id: string; secret: string };
const path = routes['telemetry.report'].path;

/** A POST on the socket, as a device sends it. */
async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${sut.platform.url!.replace('localhost', '127.0.0.1')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as { code: number; msg: string; data: Envelope },
  };
}

/** The same request through Fastify's route (inject: no socket, so not the fast path). */
async function routed(body: string, headers: Record<string, string> = {}) {
  const response = await sut.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  });
  return { status: response.statusCode, json: response.json() as { code: number; msg: string; data: Envelope } };
}

/** The device's newest temperature in the store, once the intake's batches are written. */
const stored = async () => {
  await sut.platform.ingest!.flush();
  return ok(await sut.call('telemetry.latest', { token, query: { id: device.id } })).find((v) => v.variable === 'temperature')?.value;
};

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'romeo', name: 'romeoCo', adminUsername: 'romeoAdmin', adminPassword: 'Romeo#pw1' });
  token = await sut.login('romeoAdmin', 'Romeo#pw1');
  const product = ok(await sut.call('product.create', { token, body: { name: 'FAST', code: 'FAST', type: 'direct' } })).id;
  const temperature = { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 125 } };
  ok(await sut.call('product.defineFunction', { token, body: { productId: product, function: temperature } }));
  ok(await sut.call('product.publish', { token, body: { id: product } }));
  const created = ok(await sut.call('device.create', { token, body: { sn: 'FAST-1', name: 'FAST-1', productId: product } }));
  device = { id: created.id, secret: created.secret };
  await sut.platform.runner.catchUp();
}, 120_000);

afterAll(async () => {
  await sut?.stop();
});

describe('HTTP ingest on the socket', () => {
  it('stores an acknowledged value and answers in the envelope with the device headers', async () => {
    const sent = await post(JSON.stringify({ sn: 'FAST-1', secret: device.secret, data: { temperature: 31.25 } }), {
      'x-request-id': 'r-1',
    });
    expect(sent.status).toBe(200);
    expect(sent.json).toEqual({ code: 200, msg: 'ok', data: { accepted: 1, rejected: [] } });
    expect(sent.headers.get('x-request-id')).toBe('r-1');
    expect(sent.headers.get('cache-control')).toBe('no-store');
    expect(sent.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await stored()).toBe(31.25);
    // A value the thing model refuses is told, as the route tells it.
    const refused = JSON.stringify({ sn: 'FAST-1', secret: device.secret, data: { temperature: 500, humidity: 3 } });
    expect(await post(refused)).toMatchObject(await routed(refused));
  });

  it('answers every refusal as the route does, in the caller’s language, never a 500', async () => {
    const good = { sn: 'FAST-1', secret: device.secret };
    const cases: Array<[string, string, Record<string, string>?]> = [
      ['wrong secret', JSON.stringify({ sn: 'FAST-1', secret: 'nope', data: { temperature: 1 } })],
      ['unknown device', JSON.stringify({ sn: 'NOBODY', secret: 'nope', data: { temperature: 1 } }), { lang: 'en' }],
      ['no credentials', JSON.stringify({ data: { temperature: 1 } })],
      ['bad JSON', '{"sn": "FAST-1", '],
      ['not an object', '[1,2,3]'],
      ['unknown field', JSON.stringify({ ...good, data: { temperature: 1 }, extra: 1 }), { lang: 'en' }],
      ['wrong type', JSON.stringify({ sn: 7, secret: device.secret, data: {} })],
      ['a poisoned key', `{"sn":"FAST-1","secret":"${device.secret}","data":{"__proto__":{"x":1}}}`],
      ['an unstorable string', JSON.stringify({ ...good, data: { temperature: 'a\u0000b' } })],
      ['nested too deep', `{"sn":"FAST-1","data":${'['.repeat(40)}${']'.repeat(40)}}`],
      ['a malformed reading', JSON.stringify({ ...good, data: 'hello' }), { 'accept-language': 'en-US' }],
      ['a future timestamp', JSON.stringify({ ...good, data: [{ ts: Date.UTC(2100, 0, 1), values: { temperature: 20 } }] })],
    ];
    for (const [name, body, headers] of cases) {
      const socket = await post(body, headers);
      const route = await routed(body, headers);
      expect({ name, ...socket, headers: undefined }).toEqual({ name, ...route, headers: undefined });
      expect(socket.status, name).toBeGreaterThanOrEqual(400);
      expect(socket.status, name).toBeLessThan(500);
    }
    // Not JSON at all: Fastify's own refusal of the media type, in the envelope.
    const text = await post('temperature=1', { 'content-type': 'text/plain' });
    expect(text).toMatchObject({ status: 400, json: { code: 400, data: { error: 'VALIDATION' } } });
  });

  it('refuses a rotated secret and a disabled device at once', async () => {
    const report = (secret: string) => post(JSON.stringify({ sn: 'FAST-1', secret, data: { temperature: 20 } }));
    expect((await report(device.secret)).json.data).toEqual({ accepted: 1, rejected: [] });
    const rotated = ok(await sut.call('device.rotateSecret', { token, body: { id: device.id } }));
    const old = await report(device.secret);
    expect(old.status).toBe(401);
    expect(old.json.data.error).toBe('DEVICE_AUTH_FAILED');
    expect((await report(rotated.secret)).json.data.accepted).toBe(1);
    ok(await sut.call('device.disable', { token, body: { id: device.id } }));
    const disabled = await report(rotated.secret);
    expect(disabled.status).toBe(401);
    expect(disabled.json.data.error).toBe('DEVICE_AUTH_FAILED');
  });
});
