import mqttPacket from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import {
  connectFrame,
  FrameSplitter,
  OtaProgressTemplate,
  PublishTemplate,
  readPuback,
  writeTime,
  type ProtocolVersion,
} from './mqtt-frames.ts';

/** Decodes frames with mqtt-packet's own parser: what a broker would read. */
function parse(bytes: Buffer, protocolVersion: ProtocolVersion) {
  const parser = mqttPacket.parser({ protocolVersion });
  const packets: mqttPacket.Packet[] = [];
  parser.on('packet', (packet) => packets.push(packet));
  parser.on('error', (error) => {
    throw error;
  });
  parser.parse(bytes);
  return packets;
}

describe('OtaProgressTemplate', () => {
  for (const version of [4, 5] as const) {
    it(`fills an OTA progress report (MQTT ${version}) whose JSON carries the percent of its sequence number`, () => {
      const template = new OtaProgressTemplate('devices/SN-7/ota/t1/progress', version);
      for (const seq of [0, 7, 42, 100, 101, 250]) {
        const out = Buffer.alloc(template.length);
        template.fill(out, 0, 300 + seq, 0, seq);
        const [packet] = parse(out, version) as mqttPacket.IPublishPacket[];
        expect(packet!.topic).toBe('devices/SN-7/ota/t1/progress');
        expect(packet!.messageId).toBe(300 + seq);
        expect(JSON.parse(String(packet!.payload))).toEqual({ status: 'downloading', percent: OtaProgressTemplate.percentOf(seq) });
      }
    });
  }
});

describe('PublishTemplate', () => {
  for (const version of [4, 5] as const) {
    it(`fills a QoS 1 PUBLISH that an MQTT ${version === 4 ? '3.1.1' : '5'} parser reads back with its id and send time`, () => {
      const template = new PublishTemplate('devices/SN-7/telemetry', 3, version);
      const out = Buffer.alloc(template.length * 2);
      const end = template.fill(out, 0, 1, 1_764_000_000_123.456);
      template.fill(out, end, 65535, 1_764_000_000_124);
      const packets = parse(out, version) as mqttPacket.IPublishPacket[];
      expect(packets).toHaveLength(2);
      expect(packets.map((p) => [p.topic, p.qos, p.messageId])).toEqual([
        ['devices/SN-7/telemetry', 1, 1],
        ['devices/SN-7/telemetry', 1, 65535],
      ]);
      expect(JSON.parse(packets[0]!.payload.toString())).toEqual({ v1: 1_764_000_000_123.456, v2: 22.5, v3: 33.75 });
      expect(JSON.parse(packets[1]!.payload.toString()).v1).toBe(1_764_000_000_124);
    });
  }

  it('writes the time as 13 digits, a point and 3 decimals', () => {
    const out = Buffer.alloc(17);
    writeTime(out, 0, 1_764_000_000_123.25);
    expect(out.toString()).toBe('1764000000123.250');
    writeTime(out, 0, 5.0006);
    expect(out.toString()).toBe('0000000000005.001');
  });
});

describe('FrameSplitter', () => {
  it('finds every packet however the stream is cut, including a remaining length of several bytes', () => {
    const big = new PublishTemplate(`devices/${'x'.repeat(200)}/telemetry`, 10, 4);
    const stream = Buffer.alloc(big.length);
    big.fill(stream, 0, 9, 1);
    const bytes = Buffer.concat([
      connectFrame({ clientId: 'c', username: 'u', password: 'p', protocolVersion: 5 }),
      stream,
      Buffer.from([0x40, 0x02, 0x00, 0x2a]),
      Buffer.from([0x40, 0x03, 0x01, 0x00, 0x87]),
    ]);
    for (const cut of [1, 2, 3, 7, 64, bytes.length]) {
      const seen: [number, number][] = [];
      const pubacks: ReturnType<typeof readPuback>[] = [];
      const splitter = new FrameSplitter((buffer, type, _flags, bodyStart, end) => {
        seen.push([type, end - bodyStart]);
        if (type === 4) pubacks.push(readPuback(buffer, bodyStart, end));
      });
      for (let at = 0; at < bytes.length; at += cut) splitter.push(bytes.subarray(at, at + cut));
      expect(seen.map(([type]) => type)).toEqual([1, 3, 4, 4]);
      expect(seen[1]![1]).toBeGreaterThan(127);
      expect(pubacks).toEqual([
        { packetId: 42, reasonCode: 0 },
        { packetId: 256, reasonCode: 0x87 },
      ]);
    }
  });
});
