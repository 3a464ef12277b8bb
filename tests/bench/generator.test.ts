import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGenerator, type Generator } from './generator.ts';
import { startSink, type Sink } from './sink.ts';

describe('the raw-socket generator against the acknowledging sink', () => {
  let sink: Sink;
  let generator: Generator;
  beforeAll(async () => {
    sink = await startSink();
    generator = await startGenerator(2);
  });
  afterAll(async () => {
    await generator?.close();
    await sink?.close();
  });

  for (const protocolVersion of [4, 5] as const) {
    it(`offers exactly rate × seconds messages over MQTT ${protocolVersion === 4 ? '3.1.1' : '5'}, each acknowledged once`, async () => {
      const devices = Array.from({ length: 25 }, (_, i) => ({ sn: `GEN-${i}`, secret: `s${i}` }));
      await generator.connect(sink.url, devices, { vars: 3, protocolVersion });
      const before = sink.received;
      const step = await generator.step(2000, 0.5, 5000);
      await generator.disconnect();
      expect(step.offered).toBe(1000);
      expect([step.sent, step.acked, sink.received - before]).toEqual([1000, 1000, 1000]);
      expect([step.unacked, step.stray, step.blocked, step.failed, step.refused]).toEqual([0, 0, 0, 0, 0]);
      expect(step.ack.totalCount).toBe(1000);
    });
  }
});
