/** One device's readings at one instant. */
export interface Sample {
  /** Milliseconds since the epoch; the receive time when the device sent none. */
  ts: number;
  values: Record<string, unknown>;
}

export class MalformedPayload extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function timeOf(ts: unknown, now: number): number {
  if (ts === undefined) return now;
  const n = typeof ts === 'string' ? Date.parse(ts) : ts;
  // Milliseconds within a sane window: year 2000 to a day ahead of the server.
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 946_684_800_000 || n > now + 86_400_000)
    throw new MalformedPayload('ts out of range');
  return n;
}

/**
 * Readings as devices send them: `{"temperature": 21.5}`, `{"ts": 1700000000000, "values": {...}}`, or an
 * array of either (ThingsBoard's shapes).
 */
export function samplesOf(body: unknown, now: number): Sample[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0 || list.length > 1000) throw new MalformedPayload('expected 1 to 1000 samples');
  return list.map((item) => {
    if (!isRecord(item)) throw new MalformedPayload('a sample is an object');
    if ('values' in item) {
      if (!isRecord(item.values)) throw new MalformedPayload('values is an object');
      return { ts: timeOf(item.ts, now), values: item.values };
    }
    return { ts: now, values: item };
  });
}

/** A gateway's message: readings per sub-device, keyed by its SN (or name, for ThingsBoard gateways). */
export function gatewaySamplesOf(body: unknown, now: number): Map<string, Sample[]> {
  if (!isRecord(body)) throw new MalformedPayload('a gateway message is an object keyed by sub-device');
  const out = new Map<string, Sample[]>();
  for (const [device, readings] of Object.entries(body)) out.set(device, samplesOf(readings, now));
  return out;
}

/**
 * The UTF-8 text of bytes a port hands over (a Buffer at run time in Node: read in place, not copied, and not wrapped
 * in a Buffer of its own either: that object is made for every message otherwise).
 */
export const textOf = (bytes: Uint8Array, encoding: 'utf8' | 'base64' = 'utf8'): string =>
  (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString(encoding);

/** JSON, refusing what JSON.parse would turn into prototype changes. */
export function parseJson(payload: Uint8Array, maxBytes: number): unknown {
  if (payload.length > maxBytes) throw new MalformedPayload(`payload over ${maxBytes} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(textOf(payload));
  } catch {
    throw new MalformedPayload('not JSON');
  }
  return body;
}
