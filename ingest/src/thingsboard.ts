import type { ThingFunction } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { MalformedPayload } from './payload.ts';
import type { DeviceRef } from './registry.ts';

/**
 * ThingsBoard's client-side requests (its device and gateway MQTT API), answered as ThingsBoard answers them and to
 * the asking session only: a client-side RPC on `v1/devices/me/rpc/request/{id}` gets its answer on
 * `.../rpc/response/{id}` (`getSessionLimits` with the session's limits, any other method an error object); an
 * attribute request on `v1/devices/me/attributes/request/{id}` gets `{"client": {...}, "shared": {...}}` on
 * `.../attributes/response/{id}`; a gateway's on `v1/gateway/attributes/request` gets `{"id", "device", "value"}` (or
 * `"values"`) on `v1/gateway/attributes/response`. Client attributes are what the device last reported, shared ones
 * the desired values operators set (which reach ThingsBoard firmware as shared-attribute updates).
 */

export const rpcResponseTopic = (requestId: string) => `v1/devices/me/rpc/response/${requestId}`;
export const attributesResponseTopic = (requestId: string) => `v1/devices/me/attributes/response/${requestId}`;
export const TB_GATEWAY_ATTRIBUTES_RESPONSE_TOPIC = 'v1/gateway/attributes/response';

/** ThingsBoard's session limits (its `SessionLimits`, `GatewaySessionLimits`): rate limits as `"count:seconds,..."`, null for none. */
export interface SessionLimits {
  maxPayloadSize: number;
  maxInflightMessages: number;
  rateLimits: RateLimits;
  /** Gateways only: the gateway's own limits (`rateLimits` is then its devices'). */
  gatewayRateLimits?: RateLimits;
}
interface RateLimits {
  messages: string | null;
  telemetryMessages: string | null;
  telemetryDataPoints: string | null;
}

export interface ThingsboardRequestsOptions {
  /** The newest sample of each of the device's variables (`keys`, or all). */
  latest(device: DeviceRef, keys: readonly string[] | null): Promise<TelemetryRow[]>;
  /** The desired value of each property an operator set (identifier -> value). */
  desired(device: DeviceRef): Promise<Map<string, unknown>>;
  /** The thing model the device reports against (to give stored values back their type). */
  model(device: DeviceRef): Promise<ReadonlyMap<string, ThingFunction>>;
  /** Sends to the asking session only; false when it is gone. */
  respond(clientId: string, topic: string, payload: object): Promise<boolean>;
  /** The largest payload the intake takes. */
  maxPayloadBytes: number;
  /** Messages a session may have unacknowledged (the platform holds none back: back-pressure is by acknowledgement). */
  maxInflightMessages?: number;
}

/** What a gateway names its device by in a request (ThingsBoard: its name; here its name or SN). */
export type SubDeviceOf = (gateway: DeviceRef, key: string) => Promise<DeviceRef | null>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const NO_LIMITS: RateLimits = { messages: null, telemetryMessages: null, telemetryDataPoints: null };

/** `"a,b"` (ThingsBoard's form) or `["a","b"]`: the keys asked for; null when absent (all). */
function keysOf(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
  if (Array.isArray(value) && value.every((k) => typeof k === 'string')) return value;
  throw new MalformedPayload('attribute keys are a comma-separated string or an array of strings');
}

/** A stored sample as the JSON value the device reported (booleans are stored as 0/1, structs and arrays as JSON text). */
export function reportedValue(fn: ThingFunction | undefined, row: TelemetryRow): unknown {
  const type = fn?.type === 'property' ? fn.dataType.type : undefined;
  if (type === 'bool') return row.value === 1;
  if ((type === 'struct' || type === 'array') && row.text !== null) {
    try {
      return JSON.parse(row.text) as unknown;
    } catch {
      return row.text;
    }
  }
  return row.text ?? row.value;
}

export function createThingsboardRequests(options: ThingsboardRequestsOptions) {
  const limitsOf = (device: DeviceRef): SessionLimits => ({
    maxPayloadSize: options.maxPayloadBytes,
    maxInflightMessages: options.maxInflightMessages ?? 100,
    rateLimits: NO_LIMITS,
    ...(device.nodeType === 'gateway' ? { gatewayRateLimits: NO_LIMITS } : {}),
  });

  /** Client (reported) and shared (desired) attributes of a device, `null` keys meaning all of that scope. */
  async function attributesOf(device: DeviceRef, clientKeys: string[] | null, sharedKeys: string[] | null) {
    const client: Record<string, unknown> = {};
    const shared: Record<string, unknown> = {};
    if (clientKeys === null || clientKeys.length > 0) {
      const [rows, model] = await Promise.all([options.latest(device, clientKeys), options.model(device)]);
      for (const row of rows) client[row.variable] = reportedValue(model.get(row.variable), row);
    }
    if (sharedKeys === null || sharedKeys.length > 0) {
      for (const [identifier, value] of await options.desired(device))
        if (sharedKeys === null || sharedKeys.includes(identifier)) shared[identifier] = value;
    }
    return { client, shared };
  }

  return {
    /** A client-side RPC of a device (or of a gateway itself): `{"method", "params"}`. */
    async rpc(device: DeviceRef, clientId: string, requestId: string, body: unknown): Promise<void> {
      if (!isRecord(body) || typeof body.method !== 'string') throw new MalformedPayload('an RPC request is {"method", "params"}');
      // ThingsBoard answers a method no rule chain handles with an error object; here at once rather than after its time-out.
      const answer = body.method === 'getSessionLimits' ? limitsOf(device) : { error: `unsupported method: ${body.method.slice(0, 64)}` };
      await options.respond(clientId, rpcResponseTopic(requestId), answer);
    },

    /** `{"clientKeys": "a,b", "sharedKeys": "c"}`: neither asks for all; one alone asks for that scope only. */
    async attributes(device: DeviceRef, clientId: string, requestId: string, body: unknown): Promise<void> {
      if (!isRecord(body)) throw new MalformedPayload('an attribute request is {"clientKeys", "sharedKeys"}');
      let clientKeys = keysOf(body.clientKeys);
      let sharedKeys = keysOf(body.sharedKeys);
      if (clientKeys === null && sharedKeys !== null) clientKeys = [];
      if (sharedKeys === null && clientKeys !== null) sharedKeys = [];
      const { client, shared } = await attributesOf(device, clientKeys, sharedKeys);
      // ThingsBoard leaves out a scope with nothing in it.
      await options.respond(clientId, attributesResponseTopic(requestId), {
        ...(Object.keys(client).length > 0 ? { client } : {}),
        ...(Object.keys(shared).length > 0 ? { shared } : {}),
      });
    },

    /** A gateway asks for one of its devices' attributes: `{"id", "device", "client": bool, "key"|"keys"}`. */
    async gatewayAttributes(gateway: DeviceRef, clientId: string, body: unknown, subDevice: SubDeviceOf): Promise<void> {
      if (gateway.nodeType !== 'gateway') throw new MalformedPayload('not a gateway');
      if (!isRecord(body) || typeof body.device !== 'string' || typeof body.id !== 'number')
        throw new MalformedPayload('a gateway attribute request is {"id", "device", "client", "keys"}');
      const keys = typeof body.key === 'string' ? [body.key] : keysOf(body.keys);
      if (!keys) throw new MalformedPayload('a gateway attribute request names its keys');
      const device = await subDevice(gateway, body.device);
      if (!device) throw new MalformedPayload(`${body.device.slice(0, 64)} is not a sub-device of this gateway`);
      const { client, shared } = await attributesOf(device, body.client === true ? keys : [], body.client === true ? [] : keys);
      const values = body.client === true ? client : shared;
      const found = Object.keys(values);
      await options.respond(clientId, TB_GATEWAY_ATTRIBUTES_RESPONSE_TOPIC, {
        id: body.id,
        device: body.device,
        // One key asked: `value`; several: `values` (ThingsBoard's `isMultipleAttributesRequest`).
        ...(keys.length === 1 ? (found.length === 1 ? { value: values[found[0]!] } : {}) : { values }),
      });
    },
  };
}
export type ThingsboardRequests = ReturnType<typeof createThingsboardRequests>;
