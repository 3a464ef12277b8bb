import { describe, expect, it } from 'vitest';
import { forwardRuleFields, mqttServerCreateBody, mqttTopicFilter, topicMatches } from './model.ts';

describe('forwarding forms (spec §5)', () => {
  const mqtt = { name: 'Plant', ip: '203.0.113.10', port: 1883 };
  it('takes an IPv4 address and a port up to 65535, and nothing else', () => {
    expect(mqttServerCreateBody.safeParse(mqtt).success).toBe(true);
    for (const ip of ['256.1.1.1', 'plant.example.com', '10.0.0', ''])
      expect(mqttServerCreateBody.safeParse({ ...mqtt, ip }).success, ip).toBe(false);
    for (const port of [0, 65536, 1.5]) expect(mqttServerCreateBody.safeParse({ ...mqtt, port }).success, String(port)).toBe(false);
    expect(mqttServerCreateBody.safeParse({ name: 'Plant', ip: '203.0.113.10' }).success).toBe(false);
  });

  it('refuses a rule topic with a wildcard or a template naming an unknown variable', () => {
    const rule = { name: 'r', productIds: ['p'], messageTypes: ['telemetry'], serverId: 's' };
    expect(forwardRuleFields.safeParse(rule).success).toBe(true);
    expect(forwardRuleFields.safeParse({ ...rule, topic: 'plant/#' }).success).toBe(false);
    expect(forwardRuleFields.safeParse({ ...rule, payloadTemplate: '{"v":{{secret}}}' }).success).toBe(false);
  });
});

describe('MQTT topic rules', () => {
  it("refuses malformed filters, system topics and the devices' own topics", () => {
    expect(mqttTopicFilter.safeParse('plant/+/status').success).toBe(true);
    expect(mqttTopicFilter.safeParse('plant/#').success).toBe(true);
    for (const topic of [
      'plant/a+/x',
      'plant/#/x',
      '$SYS/#',
      '#',
      '+/status',
      'devices/SN-1/telemetry',
      'v1/devices/me/telemetry',
      'gateways/+/telemetry',
    ])
      expect(mqttTopicFilter.safeParse(topic).success, topic).toBe(false);
  });

  it('grants a topic or a narrower filter only when every topic it names is granted', () => {
    expect(topicMatches('plant/+/status', 'plant/hall2/status')).toBe(true);
    expect(topicMatches('plant/#', 'plant/hall2/status')).toBe(true);
    expect(topicMatches('plant/#', 'plant/+/status')).toBe(true);
    expect(topicMatches('plant/+/status', 'plant/#')).toBe(false);
    expect(topicMatches('plant/+/status', 'plant/+/status')).toBe(true);
    expect(topicMatches('plant/hall2/status', 'plant/+/status')).toBe(false);
    expect(topicMatches('plant/+', 'plant/hall2/status')).toBe(false);
    expect(topicMatches('plant/hall2', 'plant/hall2/status')).toBe(false);
  });
});
