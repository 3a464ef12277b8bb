import { describe, expect, it } from 'vitest';
import { downlinkFilters, parseUplink } from './topics.ts';

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

  it("lets a device subscribe to its own downlinks only, another device's never", () => {
    const mine = downlinkFilters('SN-1');
    expect(mine).toEqual(
      expect.arrayContaining([
        'devices/SN-1/command/+',
        'devices/SN-1/passthrough/down',
        'gateways/SN-1/command/+',
        'v1/devices/me/rpc/request/+',
      ]),
    );
    expect(mine.some((f) => f.includes('SN-2') || f.startsWith('devices/+') || f === '#')).toBe(false);
  });
});
