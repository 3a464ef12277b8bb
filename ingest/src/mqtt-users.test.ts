import { describe, expect, it } from 'vitest';
import type { MqttAccess } from '@iot/contracts';
import type { MqttUserDirectory } from '@iot/contracts/ports/mqtt-users.ts';
import { createMqttUserAuth } from './mqtt-users.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** One MQTT user `alice` (password `secret`) of tenant t1, whose topic rules the test sets. */
function directory(acls: Array<{ topic: string; access: MqttAccess }>): MqttUserDirectory & { aclReads: number } {
  const d = {
    aclReads: 0,
    byUsername: async (username: string) => (username.toLowerCase() === 'alice' ? { id: 'u1', tenantId: 't1' } : null),
    verifyPassword: async (userId: string, password: string) => userId === 'u1' && password === 'secret',
    aclsOf: async () => {
      d.aclReads++;
      return acls;
    },
  };
  return d;
}

describe('MQTT users on the embedded broker', () => {
  it('lets a user in under its own client id namespace, and leaves another username to the intake', async () => {
    const sut = createMqttUserAuth(directory([]));
    expect(await sut.authenticate({ clientId: 'c1', username: 'device-sn' }, bytes('x'))).toBeNull();
    expect(await sut.authenticate({ clientId: 'c1', username: 'alice' }, bytes('wrong'))).toBe(false);
    expect(await sut.authenticate({ clientId: 'c1', username: 'Alice', connectionId: 1 }, bytes('secret'))).toEqual({
      clientId: 'mqttuser/u1/c1',
    });
    expect(sut.owns('mqttuser/u1/c1')).toBe(true);
    expect(sut.tenantOf('mqttuser/u1/c1')).toBe('t1');
  });

  it('grants publish and subscribe by the topic rules, never on the devices topics', async () => {
    const sut = createMqttUserAuth(
      directory([
        { topic: 'plant/+/temp', access: 'publish' },
        { topic: 'plant/#', access: 'subscribe' },
        { topic: 'devices/#', access: 'both' },
      ]),
    );
    await sut.authenticate({ clientId: 'c1', username: 'alice' }, bytes('secret'));
    const id = 'mqttuser/u1/c1';
    expect(await sut.mayPublish(id, 'plant/a/temp')).toBe(true);
    expect(await sut.mayPublish(id, 'plant/a/humidity')).toBe(false);
    expect(await sut.maySubscribe(id, 'plant/a/humidity')).toBe(true);
    expect(await sut.mayPublish(id, 'devices/SN-1/telemetry')).toBe(false);
    expect(await sut.mayPublish('mqttuser/u1/unknown', 'plant/a/temp')).toBe(false);
  });

  it('grants what a session published before its DISCONNECT, though the broker asks after the session ended; nothing more', async () => {
    const sut = createMqttUserAuth(directory([{ topic: 'plant/#', access: 'both' }]));
    await sut.authenticate({ clientId: 'c1', username: 'alice', connectionId: 1 }, bytes('secret'));
    const id = 'mqttuser/u1/c1';
    sut.disconnected({ clientId: id, connectionId: 1 });

    expect(sut.owns(id)).toBe(true);
    expect(await sut.mayPublish(id, 'plant/a')).toBe(true);
    expect(await sut.maySubscribe(id, 'plant/a')).toBe(false);
    // A changed password ends the ended session too.
    await sut.apply({ type: 'MqttUserPasswordChanged', data: { mqttUserId: 'u1' } });
    expect(sut.owns(id)).toBe(false);
    expect(await sut.mayPublish(id, 'plant/a')).toBe(false);
  });

  it('reads the rules again when one changes, and cuts the sessions of a user whose password changed', async () => {
    const dir = directory([{ topic: 'plant/#', access: 'both' }]);
    const sut = createMqttUserAuth(dir);
    const cut: string[] = [];
    sut.cutWith(async (clientId) => cut.push(clientId));
    await sut.authenticate({ clientId: 'c1', username: 'alice' }, bytes('secret'));
    await sut.mayPublish('mqttuser/u1/c1', 'plant/a');
    await sut.mayPublish('mqttuser/u1/c1', 'plant/b');
    expect(dir.aclReads).toBe(1);
    await sut.apply({ type: 'MqttAclDeleted', data: { aclId: 'a1' } });
    await sut.mayPublish('mqttuser/u1/c1', 'plant/a');
    expect(dir.aclReads).toBe(2);

    await sut.apply({ type: 'MqttUserPasswordChanged', data: { mqttUserId: 'u1' } });
    expect(cut).toEqual(['mqttuser/u1/c1']);
    expect(sut.owns('mqttuser/u1/c1')).toBe(false);
  });
});
