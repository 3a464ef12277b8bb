import { describe, expect, it } from 'vitest';
import { createPresence } from './presence.ts';
import type { DeviceRef } from './registry.ts';

const device: DeviceRef = {
  deviceId: 'd1',
  tenantId: 't1',
  sn: 'SN-1',
  name: 'one',
  productId: 'p1',
  modelVersion: 1,
  nodeType: 'direct',
  gatewayId: null,
  groupId: null,
};

describe('presence shared by several processes (external broker)', () => {
  it('records a reporting device online again at most every half heartbeat, offline when timed out, online at its next report', async () => {
    let clock = 1_000_000;
    const recorded: string[] = [];
    const presence = createPresence({
      shared: true,
      heartbeatTimeoutMs: 10_000,
      now: () => clock,
      dispatch: async (command) => {
        const c = command as unknown as { online: boolean; reason?: string };
        recorded.push(c.online ? 'online' : `offline:${c.reason}`);
        return { position: null };
      },
    });
    presence.reported(device);
    clock += 4_000;
    presence.reported(device);
    expect(recorded).toEqual(['online']);
    // Another process may have recorded it offline meanwhile: after half the heartbeat, online is recorded again.
    clock += 1_500;
    presence.reported(device);
    expect(recorded).toEqual(['online', 'online']);
    presence.timedOut(device);
    presence.reported(device);
    expect(recorded).toEqual(['online', 'online', 'offline:timeout', 'online']);
    presence.stop();
  });
});
