import { describe, expect, it } from 'vitest';
import type { ThingFunction } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { MalformedPayload } from './payload.ts';
import type { DeviceRef } from './registry.ts';
import { createThingsboardRequests } from './thingsboard.ts';

const device = (over: Partial<DeviceRef> = {}): DeviceRef => ({
  deviceId: 'd1',
  tenantId: 't1',
  sn: 'SN-1',
  name: 'Meter A',
  productId: 'p1',
  modelVersion: 1,
  nodeType: 'direct',
  gatewayId: null,
  groupId: null,
  ...over,
});
const row = (variable: string, value: number | null, text: string | null = null): TelemetryRow => ({
  tenantId: 't1',
  deviceId: 'd1',
  variable,
  ts: new Date(0),
  value,
  text,
});
const property = (identifier: string, type: string) =>
  ({ type: 'property', identifier, name: identifier, access: 'r', dataType: { type } }) as unknown as ThingFunction;

/** The requests over fixed reported and desired values; what goes out is kept. */
function sut() {
  const sent: Array<{ clientId: string; topic: string; payload: object }> = [];
  const reported = [row('temperature', 21.5), row('on', 1), row('model', null, 'DHT-22'), row('shape', null, '{"w":2}')];
  const requests = createThingsboardRequests({
    latest: async (_device, keys) => reported.filter((r) => !keys || keys.includes(r.variable)),
    desired: async () => new Map<string, unknown>([['setpoint', 7]]),
    model: async () =>
      new Map([
        ['temperature', property('temperature', 'float')],
        ['on', property('on', 'bool')],
        ['model', property('model', 'text')],
        ['shape', property('shape', 'struct')],
      ]),
    respond: async (clientId, topic, payload) => (sent.push({ clientId, topic, payload }), true),
    maxPayloadBytes: 1024,
  });
  return { requests, sent };
}

describe("ThingsBoard's client-side requests", () => {
  it('answers getSessionLimits with ThingsBoard’s shape, a gateway’s with its own rate limits too', async () => {
    const { requests, sent } = sut();
    await requests.rpc(device(), 'c1', '1', { method: 'getSessionLimits', params: { timeout: 5000 } });
    await requests.rpc(device({ nodeType: 'gateway' }), 'c2', '2', { method: 'getSessionLimits' });
    const none = { messages: null, telemetryMessages: null, telemetryDataPoints: null };
    expect(sent).toEqual([
      {
        clientId: 'c1',
        topic: 'v1/devices/me/rpc/response/1',
        payload: { maxPayloadSize: 1024, maxInflightMessages: 100, rateLimits: none },
      },
      {
        clientId: 'c2',
        topic: 'v1/devices/me/rpc/response/2',
        payload: { maxPayloadSize: 1024, maxInflightMessages: 100, rateLimits: none, gatewayRateLimits: none },
      },
    ]);
  });

  it('answers any other method with an error object, and refuses what is no RPC request', async () => {
    const { requests, sent } = sut();
    await requests.rpc(device(), 'c1', '9', { method: 'getTime', params: {} });
    expect(sent).toEqual([{ clientId: 'c1', topic: 'v1/devices/me/rpc/response/9', payload: { error: 'unsupported method: getTime' } }]);
    await expect(requests.rpc(device(), 'c1', '10', ['getTime'])).rejects.toBeInstanceOf(MalformedPayload);
  });

  it('answers an attribute request with the reported values as client and the desired ones as shared, typed back', async () => {
    const { requests, sent } = sut();
    await requests.attributes(device(), 'c1', '3', { clientKeys: 'temperature,on,shape', sharedKeys: 'setpoint' });
    await requests.attributes(device(), 'c1', '4', { clientKeys: 'model' });
    await requests.attributes(device(), 'c1', '5', { sharedKeys: 'setpoint' });
    await requests.attributes(device(), 'c1', '6', {});
    await requests.attributes(device(), 'c1', '7', { clientKeys: 'nothing' });
    expect(sent.map((s) => [s.topic, s.payload])).toEqual([
      ['v1/devices/me/attributes/response/3', { client: { temperature: 21.5, on: true, shape: { w: 2 } }, shared: { setpoint: 7 } }],
      ['v1/devices/me/attributes/response/4', { client: { model: 'DHT-22' } }],
      ['v1/devices/me/attributes/response/5', { shared: { setpoint: 7 } }],
      [
        'v1/devices/me/attributes/response/6',
        { client: { temperature: 21.5, on: true, model: 'DHT-22', shape: { w: 2 } }, shared: { setpoint: 7 } },
      ],
      ['v1/devices/me/attributes/response/7', {}],
    ]);
  });

  it('answers a gateway’s request for its device’s attributes: one key as value, several as values', async () => {
    const { requests, sent } = sut();
    const gateway = device({ deviceId: 'g1', nodeType: 'gateway' });
    const sub = async (_g: DeviceRef, key: string) => (key === 'Meter A' ? device({ nodeType: 'subDevice', gatewayId: 'g1' }) : null);
    await requests.gatewayAttributes(gateway, 'cg', { id: 1, device: 'Meter A', client: false, keys: ['setpoint'] }, sub);
    await requests.gatewayAttributes(gateway, 'cg', { id: 2, device: 'Meter A', client: true, keys: ['temperature', 'model'] }, sub);
    await requests.gatewayAttributes(gateway, 'cg', { id: 3, device: 'Meter A', client: true, key: 'absent' }, sub);
    expect(sent.map((s) => [s.topic, s.payload])).toEqual([
      ['v1/gateway/attributes/response', { id: 1, device: 'Meter A', value: 7 }],
      ['v1/gateway/attributes/response', { id: 2, device: 'Meter A', values: { temperature: 21.5, model: 'DHT-22' } }],
      ['v1/gateway/attributes/response', { id: 3, device: 'Meter A' }],
    ]);
    await expect(requests.gatewayAttributes(gateway, 'cg', { id: 4, device: 'Other', client: true, keys: ['x'] }, sub)).rejects.toThrow(
      /not a sub-device/,
    );
    await expect(requests.gatewayAttributes(device(), 'c1', { id: 5, device: 'Meter A', client: true, keys: ['x'] }, sub)).rejects.toThrow(
      /not a gateway/,
    );
  });
});
