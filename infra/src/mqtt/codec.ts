/** A downlink payload as bytes: bytes as they are, strings as UTF-8, objects as JSON. */
export function encodePayload(payload: Buffer | string | object): Buffer {
  if (Buffer.isBuffer(payload)) return payload;
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  return Buffer.from(JSON.stringify(payload), 'utf8');
}
