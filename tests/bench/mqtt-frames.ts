/**
 * MQTT frames for the raw-socket load generator and its sink: encoded once with `mqtt-packet`, then only the
 * bytes that change per message (the packet id, the scheduled send time in the payload) are written in place.
 * A generator that runs MQTT.js per message measures MQTT.js (ARCHITECTURE.md, "Facts checked").
 */
import mqttPacket from 'mqtt-packet';

export type ProtocolVersion = 4 | 5;

export const PACKET = { connect: 1, connack: 2, publish: 3, puback: 4, pingreq: 12, pingresp: 13, disconnect: 14 } as const;

export function connectFrame(options: { clientId: string; username: string; password: string; protocolVersion: ProtocolVersion }): Buffer {
  return mqttPacket.generate({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: options.protocolVersion,
    clean: true,
    // No keepalive: between steps a device sends nothing for longer than any keepalive a broker would allow.
    keepalive: 0,
    clientId: options.clientId,
    username: options.username,
    password: Buffer.from(options.password),
  });
}

export const disconnectFrame = (protocolVersion: ProtocolVersion): Buffer =>
  mqttPacket.generate({ cmd: 'disconnect' }, { protocolVersion });

/** Width of the send time in a payload: epoch milliseconds with three decimals, 13 + 1 + 3 digits until 2286. */
const TIME_WIDTH = 17;
const TIME_PLACEHOLDER = '0'.repeat(13) + '.000';

/**
 * A QoS 1 PUBLISH of `{"v1":<send time ms>,"v2":…,"vN":…}` on `topic`, encoded once: `fill` copies it into a
 * buffer with a packet id and a send time. v1 carries the scheduled send time so that the store can tell each
 * row's publish-to-stored latency (its `received_at` minus v1); v2… are constants.
 */
export class PublishTemplate {
  readonly length: number;
  private readonly frame: Buffer;
  private readonly idAt: number;
  private readonly timeAt: number;

  constructor(topic: string, vars: number, protocolVersion: ProtocolVersion) {
    const values = [`"v1":${TIME_PLACEHOLDER}`];
    for (let i = 2; i <= vars; i++) values.push(`"v${i}":${(i * 11.25).toFixed(2)}`);
    const payload = Buffer.from(`{${values.join(',')}}`);
    this.frame = mqttPacket.generate(
      {
        cmd: 'publish',
        topic,
        payload,
        qos: 1,
        messageId: 0xffff,
        retain: false,
        dup: false,
      },
      { protocolVersion },
    );
    this.length = this.frame.length;
    // … topic, packet id, (MQTT 5: properties, empty: one byte of length 0), payload.
    this.idAt = this.frame.length - payload.length - (protocolVersion === 5 ? 1 : 0) - 2;
    this.timeAt = this.frame.length - payload.length + payload.indexOf(TIME_PLACEHOLDER);
  }

  /** Writes the frame at `at` in `out` with `packetId` and `sentAtMs` (epoch ms); returns the offset after it. */
  fill(out: Buffer, at: number, packetId: number, sentAtMs: number): number {
    this.frame.copy(out, at);
    out.writeUInt16BE(packetId, at + this.idAt);
    writeTime(out, at + this.timeAt, sentAtMs);
    return at + this.length;
  }
}

/**
 * A QoS 1 PUBLISH of an OTA progress report, `{"status":"downloading","percent":NNN}` on `topic`, encoded once: `fill`
 * writes the packet id and the percent of the connection's `seq`-th report (seq mod 101, right-aligned in three places,
 * padded with spaces, which JSON allows), so that each report differs from the device's previous one.
 */
export class OtaProgressTemplate {
  readonly length: number;
  private readonly frame: Buffer;
  private readonly idAt: number;
  private readonly percentAt: number;

  constructor(topic: string, protocolVersion: ProtocolVersion) {
    const payload = Buffer.from('{"status":"downloading","percent":  0}');
    this.frame = mqttPacket.generate(
      { cmd: 'publish', topic, payload, qos: 1, messageId: 0xffff, retain: false, dup: false },
      { protocolVersion },
    );
    this.length = this.frame.length;
    this.idAt = this.frame.length - payload.length - (protocolVersion === 5 ? 1 : 0) - 2;
    this.percentAt = this.frame.length - payload.length + payload.indexOf('  0}');
  }

  /** The percent of a connection's `seq`-th report (from 0). */
  static percentOf(seq: number): number {
    return seq % 101;
  }

  fill(out: Buffer, at: number, packetId: number, _sentAtMs: number, seq: number): number {
    this.frame.copy(out, at);
    out.writeUInt16BE(packetId, at + this.idAt);
    const percent = OtaProgressTemplate.percentOf(seq);
    out[at + this.percentAt] = percent >= 100 ? 0x30 + Math.floor(percent / 100) : 0x20;
    out[at + this.percentAt + 1] = percent >= 10 ? 0x30 + (Math.floor(percent / 10) % 10) : 0x20;
    out[at + this.percentAt + 2] = 0x30 + (percent % 10);
    return at + this.length;
  }
}

/** `ms` as 13 integer digits, a point and 3 decimals, written at `at` (no string made per message). */
export function writeTime(out: Buffer, at: number, ms: number): void {
  let thousandths = Math.round(ms * 1000);
  for (let i = TIME_WIDTH - 1; i >= 0; i--) {
    if (i === 13) {
      out[at + i] = 0x2e;
      continue;
    }
    out[at + i] = 0x30 + (thousandths % 10);
    thousandths = Math.floor(thousandths / 10);
  }
}

/**
 * Splits a TCP byte stream into MQTT packets: `onPacket(buffer, type, flags, bodyStart, end)` for each whole
 * packet (the body is `buffer[bodyStart, end)`); a packet cut across reads is kept until its rest arrives.
 */
export class FrameSplitter {
  private rest: Buffer | null = null;

  constructor(private readonly onPacket: (buffer: Buffer, type: number, flags: number, bodyStart: number, end: number) => void) {}

  push(chunk: Buffer): void {
    const buffer = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    let at = 0;
    while (at < buffer.length) {
      let length = 0;
      let multiplier = 1;
      let i = at + 1;
      let complete = false;
      while (i < buffer.length && i - at <= 4) {
        const byte = buffer[i++]!;
        length += (byte & 0x7f) * multiplier;
        multiplier *= 128;
        if ((byte & 0x80) === 0) {
          complete = true;
          break;
        }
      }
      if (!complete && i - at > 4) throw new Error('malformed MQTT remaining length');
      if (!complete || i + length > buffer.length) break;
      const header = buffer[at]!;
      this.onPacket(buffer, header >> 4, header & 0x0f, i, i + length);
      at = i + length;
    }
    if (at < buffer.length) this.rest = buffer.subarray(at);
  }
}

/** The packet id and reason of a PUBACK body (MQTT 5 may add a reason code; absent means success). */
export function readPuback(buffer: Buffer, bodyStart: number, end: number): { packetId: number; reasonCode: number } {
  return { packetId: buffer.readUInt16BE(bodyStart), reasonCode: end - bodyStart > 2 ? buffer[bodyStart + 2]! : 0 };
}

/** The return (3.1.1) or reason (5) code of a CONNACK: 0 is accepted. */
export const connackCode = (buffer: Buffer, bodyStart: number): number => buffer[bodyStart + 1]!;
