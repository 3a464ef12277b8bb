import { describe, expect, it } from 'vitest';
import type { DeviceRef } from '@iot/contracts/ports/device-directory.ts';
import { createBrokerAdmin } from './admin.ts';
import type { EmbeddedClientInfo, EmbeddedMqtt } from './embedded.ts';

const ref = (deviceId: string, tenantId: string): DeviceRef => ({
  deviceId,
  tenantId,
  sn: deviceId.toUpperCase(),
  name: deviceId,
  productId: 'p',
  modelVersion: 1,
  nodeType: 'direct',
  gatewayId: null,
  groupId: null,
});

/** A broker whose clients the test sets, and a clock the test moves. */
function fixture() {
  let clients: EmbeddedClientInfo[] = [];
  const cut: string[] = [];
  const embedded = {
    url: 'mqtt://127.0.0.1:1883',
    inspect: () => clients,
    disconnect: async (clientId: string) => (cut.push(clientId), true),
    health: async () => ({ ok: true }),
  } as Partial<EmbeddedMqtt>;
  let clock = 1_000_000;
  const devices = new Map([
    ['a/1', ref('a', 'alpha')],
    ['b/1', ref('b', 'bravo')],
  ]);
  const admin = createBrokerAdmin({
    mqtt: embedded as EmbeddedMqtt,
    embedded: embedded as EmbeddedMqtt,
    deviceOf: (id) => devices.get(id),
    mqttUserTenant: (id) => (id === 'mqttuser/u/x' ? 'alpha' : undefined),
    now: () => clock,
  });
  const client = (clientId: string, messagesIn: number, connectedAt = new Date(0)): EmbeddedClientInfo => ({
    clientId,
    username: null,
    address: null,
    connectedAt,
    messagesIn,
    subscriptions: [],
  });
  return {
    admin,
    cut,
    set: (next: EmbeddedClientInfo[]) => (clients = next),
    client,
    tick: (ms: number) => (clock += ms),
  };
}

describe('the broker admin', () => {
  it('scopes clients and counts to the tenant, and keeps the messages of a session that ended', async () => {
    const f = fixture();
    f.set([f.client('a/1', 3), f.client('b/1', 5), f.client('mqttuser/u/x', 1), f.client('stranger', 9)]);
    const alpha = await f.admin.overview({ tenantId: 'alpha' });
    expect(alpha.clients.map((c) => [c.clientId, c.kind])).toEqual([
      ['a/1', 'device'],
      ['mqttuser/u/x', 'mqttUser'],
    ]);
    expect(alpha.rates.messagesIn).toBe(4);
    const all = await f.admin.overview({ tenantId: null });
    expect(all.byTenant).toEqual([
      { tenantId: 'alpha', clients: 2 },
      { tenantId: 'bravo', clients: 1 },
    ]);
    expect(all.rates.messagesIn).toBe(9);

    f.tick(10_000);
    f.set([f.client('b/1', 7)]);
    expect((await f.admin.overview({ tenantId: 'alpha' })).rates.messagesIn).toBe(4);
    const bravo = await f.admin.overview({ tenantId: 'bravo' });
    expect(bravo.rates).toEqual({ messagesIn: 7, perSecond: 0.7, windowSeconds: 10 });

    // Past the window, the rate forgets what came before it; the total keeps it.
    f.tick(70_000);
    expect((await f.admin.overview({ tenantId: 'bravo' })).rates).toEqual({ messagesIn: 7, perSecond: 0, windowSeconds: 60 });
    f.admin.stop();
  });

  it('disconnects only a client of the caller’s tenant, any client for the platform administrator', async () => {
    const f = fixture();
    f.set([f.client('a/1', 0), f.client('b/1', 0)]);
    expect(await f.admin.disconnect({ tenantId: 'alpha' }, 'b/1')).toBe(false);
    expect(await f.admin.disconnect({ tenantId: 'alpha' }, 'a/1')).toBe(true);
    expect(await f.admin.disconnect({ tenantId: null }, 'b/1')).toBe(true);
    expect(await f.admin.disconnect({ tenantId: null }, 'stranger')).toBe(false);
    expect(f.cut).toEqual(['a/1', 'b/1']);
    f.admin.stop();
  });
});
