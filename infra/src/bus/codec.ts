import type { BusMessage, BusValue } from '@iot/contracts/ports/bus.ts';
import { textOf } from '@iot/ingest/payload.ts';

/** Encodes a message value the way every adapter puts it on the wire. */
export function encodeValue(value: BusValue): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** Reads a message value that was published as an object. */
export function decodeJson<T = unknown>(message: BusMessage): T {
  return JSON.parse(textOf(message.value)) as T;
}
