import { describe, expect, it } from 'vitest';
import type { MqttConfigEvent, MqttConfigFields } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { mqttConfigDecider } from './decide.ts';

const fields: MqttConfigFields = {
  gatewayId: 'g1',
  name: 'up',
  serviceName: 's',
  protocol: 'mqtt',
  ip: '10.0.0.1',
  port: 1883,
  clientId: 'c',
  username: null,
  password: 'secret',
  heartbeat: 60,
  reportInterval: 60,
  qos: 1,
  reconnectSeconds: 5,
  uplinkTopic: 'u',
  downlinkTopic: 'd',
  uploadPlatform: null,
  controlCommand: null,
  packageCount: 100,
  packageTimeMs: 1000,
  dataEntry: null,
  dataExit: null,
  reportSaveMode: 'both',
  strategy: 'periodic',
  cycleSeconds: 60,
  maxRecords: 10000,
};
/** What the log holds of `fields`: never the password itself. */
const logged = { ...fields, password: null };
const created = (hasPassword: boolean): MqttConfigEvent => ({
  type: 'MqttConfigCreated',
  data: { configId: 'm1', fields: logged, hasPassword },
});
const deleted: MqttConfigEvent = { type: 'MqttConfigDeleted', data: { configId: 'm1' } };
const { given } = scenario(mqttConfigDecider);

describe('MQTT config decider', () => {
  it('creates a config with the password left out of the event, only whether one was given', () => {
    const events = given([]).when({ type: 'CreateMqttConfig', configId: 'm1', fields, passwordGiven: true });
    expect(events).toEqual([created(true)]);
    expect(JSON.stringify(events)).not.toContain('secret');
    expect(given([]).when({ type: 'CreateMqttConfig', configId: 'm1', fields: logged, passwordGiven: false })).toEqual([created(false)]);
  });

  it('appends nothing for a create of an id that exists (a retried create)', () => {
    expect(given([created(true)]).when({ type: 'CreateMqttConfig', configId: 'm1', fields, passwordGiven: true })).toEqual([]);
  });

  it('records an edit of a field, and keeps the password set when the edit leaves it empty', () => {
    expect(
      given([created(true)]).when({ type: 'UpdateMqttConfig', configId: 'm1', fields: { ...logged, port: 8883 }, passwordGiven: false }),
    ).toEqual([{ type: 'MqttConfigUpdated', data: { configId: 'm1', fields: { ...logged, port: 8883 }, hasPassword: true } }]);
  });

  it('appends nothing for an edit that changes no field and gives no password, whatever the order of the keys', () => {
    const reordered = Object.fromEntries(Object.entries(logged).reverse()) as MqttConfigFields;
    expect(given([created(true)]).when({ type: 'UpdateMqttConfig', configId: 'm1', fields: reordered, passwordGiven: false })).toEqual([]);
    expect(given([created(false)]).when({ type: 'UpdateMqttConfig', configId: 'm1', fields: logged, passwordGiven: false })).toEqual([]);
  });

  it('records a new password even when no other field changes (the password itself is stored beside the log)', () => {
    const update = { type: 'UpdateMqttConfig', configId: 'm1', fields, passwordGiven: true } as const;
    expect(given([created(true)]).when(update)).toEqual([
      { type: 'MqttConfigUpdated', data: { configId: 'm1', fields: logged, hasPassword: true } },
    ]);
    expect(given([created(false)]).when(update)).toEqual([
      { type: 'MqttConfigUpdated', data: { configId: 'm1', fields: logged, hasPassword: true } },
    ]);
  });

  it('deletes a config once', () => {
    expect(given([created(true)]).when({ type: 'DeleteMqttConfig', configId: 'm1' })).toEqual([deleted]);
  });

  it('refuses to edit or delete a config that does not exist or was deleted (NOT_FOUND)', () => {
    const update = { type: 'UpdateMqttConfig', configId: 'm1', fields, passwordGiven: false } as const;
    expect(codeOf(() => given([]).when(update))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created(true), deleted]).when(update))).toBe('NOT_FOUND');
    expect(codeOf(() => given([]).when({ type: 'DeleteMqttConfig', configId: 'm1' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created(true), deleted]).when({ type: 'DeleteMqttConfig', configId: 'm1' }))).toBe('NOT_FOUND');
  });
});
