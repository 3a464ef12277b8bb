import { describe, expect, it } from 'vitest';
import type { TemplateFields, VariableFields } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { mqttConfigDecider } from '../mqtt-config/decide.ts';
import { templateDecider } from './decide.ts';
import type { TemplateEvent } from './template.ts';

const fields: TemplateFields = {
  name: 'T',
  productId: 'p1',
  protocol: 'modbus-rtu',
  acquisitionPeriod: 10,
  frequency: 1,
  storageMode: 'both',
  upload: 'periodic',
  retentionDays: 30,
  remark: null,
};
const variable: VariableFields = {
  name: 'V',
  type: 'analog',
  attribute: 'CLIENT',
  access: 'r',
  identifier: 'voltage',
  unit: 'V',
  base: 0,
  mapping: null,
  compute: false,
  group: null,
  modbus: null,
  plc: null,
};
const created: TemplateEvent = { type: 'TemplateCreated', data: { templateId: 't1', fields } };
const { given } = scenario(templateDecider);

describe('template decider', () => {
  it("takes a variable only under a property identifier of the product's thing model", () => {
    expect(codeOf(() => given([created]).when({ type: 'DefineVariable', templateId: 't1', variable, properties: ['current'] }))).toBe(
      'NOT_A_PROPERTY',
    );
    const defined: TemplateEvent = { type: 'TemplateVariableDefined', data: { templateId: 't1', variable } };
    expect(given([created]).when({ type: 'DefineVariable', templateId: 't1', variable, properties: ['voltage'] })).toEqual([defined]);
    expect(given([created, defined]).when({ type: 'DefineVariable', templateId: 't1', variable, properties: ['voltage'] })).toEqual([]);
  });

  it('stays with its product', () => {
    expect(codeOf(() => given([created]).when({ type: 'UpdateTemplate', templateId: 't1', fields: { ...fields, productId: 'p2' } }))).toBe(
      'TEMPLATE_PRODUCT_MISMATCH',
    );
  });
});

describe('MQTT config decider', () => {
  const mqtt = {
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
  } as const;
  const { given: givenMqtt } = scenario(mqttConfigDecider);

  it('never puts the password in the event, and an edit with an empty password keeps it set', () => {
    const [createdConfig] = givenMqtt([]).when({ type: 'CreateMqttConfig', configId: 'm1', fields: mqtt, passwordGiven: true });
    expect(JSON.stringify(createdConfig)).not.toContain('secret');
    expect(createdConfig!.data).toMatchObject({ hasPassword: true });
    expect(
      givenMqtt([createdConfig!]).when({
        type: 'UpdateMqttConfig',
        configId: 'm1',
        fields: { ...mqtt, password: null },
        passwordGiven: false,
      }),
    ).toEqual([]);
  });
});
