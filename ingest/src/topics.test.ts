import { describe, expect, it } from 'vitest';
import { downlinkFilters, namesNoDevice, parseUplink, topicOf, topicTable } from './topics.ts';

describe('MQTT topic scheme', () => {
  it('reads the uplinks of commands and pass-through, native and ThingsBoard', () => {
    expect(parseUplink('devices/SN-1/reply/m-1')).toEqual({ kind: 'reply', sn: 'SN-1', messageId: 'm-1' });
    expect(parseUplink('gateways/GW-1/reply/m-2')).toEqual({ kind: 'subReply', sn: 'GW-1', messageId: 'm-2' });
    expect(parseUplink('v1/devices/me/rpc/response/7')).toEqual({ kind: 'reply', sn: null, messageId: '7' });
    expect(parseUplink('v1/gateway/rpc')).toEqual({ kind: 'gatewayReply', sn: null });
    expect(parseUplink('devices/DTU-1/passthrough/up')).toEqual({ kind: 'passthrough', sn: 'DTU-1' });
    // A device never publishes on a downlink.
    expect(parseUplink('devices/DTU-1/passthrough/down')).toBeNull();
    expect(parseUplink('devices/SN-1/command/m-1')).toBeNull();
    expect(parseUplink('gateways/GW-1/command/m-1')).toBeNull();
  });

  it("lets a device subscribe to its own downlinks only, another device's never, a direct device's no gateway API", () => {
    const direct = downlinkFilters('SN-1', 'direct');
    const gateway = downlinkFilters('GW-1', 'gateway');
    expect(direct).toEqual(
      expect.arrayContaining([
        'devices/SN-1/command/+',
        'devices/SN-1/passthrough/down',
        'v1/devices/me/rpc/request/+',
        'v1/devices/me/attributes',
      ]),
    );
    expect(direct.filter((f) => f.startsWith('gateways/') || f.startsWith('v1/gateway/'))).toEqual([]);
    expect(gateway).toEqual(expect.arrayContaining(['gateways/GW-1/command/+', 'v1/gateway/rpc', 'v1/gateway/attributes']));
    expect([...direct, ...gateway].some((f) => f.includes('SN-2') || f.startsWith('devices/+') || f === '#')).toBe(false);
  });

  it('holds in its table every topic the parser takes and the subscriptions allow', () => {
    for (const row of topicTable.filter((r) => r.direction === 'up')) {
      const uplink = parseUplink(topicOf(row, 'SN-1', '7'));
      expect(uplink, row.topic).not.toBeNull();
      expect(uplink!.sn, row.topic).toBe(row.names === 'device' ? 'SN-1' : null);
    }
    const down = topicTable.filter((r) => r.direction === 'down');
    expect(down.filter((r) => r.device === 'any').map((r) => topicOf(r, 'SN-1'))).toEqual(
      downlinkFilters('SN-1', 'direct').filter((f) => !f.endsWith('#')),
    );
    expect(down.map((r) => topicOf(r, 'GW-1'))).toEqual(downlinkFilters('GW-1', 'gateway').filter((f) => !f.endsWith('#')));
    // What names no device is ThingsBoard's: the platform sends there to one session only.
    for (const row of topicTable) expect(namesNoDevice(topicOf(row, 'SN-1')), row.topic).toBe(row.names === 'session');
  });
});
