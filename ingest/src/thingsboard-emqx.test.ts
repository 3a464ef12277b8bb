import { describe, expect, it } from 'vitest';
import { rewriteTopic, thingsboardRewriteRules } from './thingsboard-emqx.ts';
import { mayPublishOn, parseUplink, uplinkFilters } from './topics.ts';

describe('EMQX rewrite of ThingsBoard topics', () => {
  const device = { clientid: 'SENSOR-7', username: 'access-token-of-sensor-7' };

  it('carries telemetry and attributes of `me` onto the device’s own topics, which an ingest process subscribes to', () => {
    for (const kind of ['telemetry', 'attributes'] as const) {
      const topic = rewriteTopic(thingsboardRewriteRules, `v1/devices/me/${kind}`, device);
      expect(topic).toBe(`devices/SENSOR-7/${kind}`);
      expect(parseUplink(topic)).toEqual({ kind, sn: 'SENSOR-7' });
      expect(uplinkFilters).toContain(`devices/+/${kind}`);
      expect(mayPublishOn('SENSOR-7', topic)).toBe(true);
    }
  });

  it('never puts the access token (the MQTT username) into a topic', () => {
    for (const rule of thingsboardRewriteRules) expect(rule.dest_topic).not.toContain('${username}');
    expect(rewriteTopic(thingsboardRewriteRules, 'v1/devices/me/telemetry', device)).not.toContain(device.username);
  });

  it('leaves other topics alone', () => {
    expect(rewriteTopic(thingsboardRewriteRules, 'devices/SENSOR-7/telemetry', device)).toBe('devices/SENSOR-7/telemetry');
    expect(rewriteTopic(thingsboardRewriteRules, 'v1/devices/me/telemetry/extra', device)).toBe('v1/devices/me/telemetry/extra');
    expect(rewriteTopic(thingsboardRewriteRules, 'v1/devices/me/rpc/request/1', device)).toBe('v1/devices/me/rpc/request/1');
  });
});
