import { describe, expect, it } from 'vitest';
import { matchesTopicFilter } from './mqtt.ts';

describe('matchesTopicFilter', () => {
  it.each([
    ['device/+/telemetry', 'device/d1/telemetry', true],
    ['device/+/telemetry', 'device/d1/event', false],
    ['device/+/telemetry', 'device/d1/telemetry/x', false],
    ['device/#', 'device', true],
    ['device/#', 'device/d1/telemetry', true],
    ['#', 'device/d1', true],
    ['#', '$SYS/broker/load', false],
    ['+/d1', '$SYS/d1', false],
    ['$SYS/#', '$SYS/broker/load', true],
    ['a/b', 'a/b', true],
    ['a/b', 'a', false],
    ['a/+', 'a/', true],
  ])('%s matches %s: %s', (filter, topic, expected) => {
    expect(matchesTopicFilter(filter, topic)).toBe(expected);
  });
});
