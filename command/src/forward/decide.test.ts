import { describe, expect, it } from 'vitest';
import type { ForwardRuleFields, ForwardServerFields, MqttAclFields, MqttUserEvent } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { forwardRuleDecider, forwardServerDecider, mqttAclDecider, mqttUserDecider } from './decide.ts';

const server: ForwardServerFields = {
  type: 'mqtt',
  name: 'Plant broker',
  ip: '203.0.113.10',
  port: 1883,
  url: null,
  username: 'plant',
  clientId: null,
  tls: false,
  remark: null,
  hasPassword: true,
};
const rule: ForwardRuleFields = {
  name: 'Readings to the plant',
  productIds: ['p1'],
  deviceIds: [],
  messageTypes: ['telemetry'],
  serverId: 's1',
  topic: null,
  payloadTemplate: null,
  status: 'enabled',
};
const acl: MqttAclFields = { mqttUserId: 'u1', topic: 'plant/+/status', access: 'subscribe' };

describe('forwarding server decider', () => {
  const { given } = scenario(forwardServerDecider);
  const created = { type: 'ForwardServerCreated', data: { serverId: 's1', ...server } } as const;

  it('creates a server once, edits what changed, appends nothing for an edit that changes nothing', () => {
    expect(given([]).when({ type: 'Create', id: 's1', fields: server })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'Create', id: 's1', fields: server }))).toBe('CONFLICT');
    expect(given([created]).when({ type: 'Update', id: 's1', fields: { ...server, port: 8883, tls: true } })).toEqual([
      { type: 'ForwardServerUpdated', data: { serverId: 's1', ...server, port: 8883, tls: true } },
    ]);
    expect(given([created]).when({ type: 'Update', id: 's1', fields: server })).toEqual([]);
  });

  it('refuses to edit or delete a server that is gone (NOT_FOUND)', () => {
    const deleted = { type: 'ForwardServerDeleted', data: { serverId: 's1' } } as const;
    expect(given([created]).when({ type: 'Delete', id: 's1' })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'Update', id: 's1', fields: server }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([]).when({ type: 'Delete', id: 's1' }))).toBe('NOT_FOUND');
  });
});

describe('forwarding rule and topic rule deciders', () => {
  it('keep a forwarding rule: created, edited, deleted', () => {
    const { given } = scenario(forwardRuleDecider);
    const created = { type: 'ForwardRuleCreated', data: { ruleId: 'r1', ...rule } } as const;
    expect(given([]).when({ type: 'Create', id: 'r1', fields: rule })).toEqual([created]);
    expect(given([created]).when({ type: 'Update', id: 'r1', fields: { ...rule, status: 'stopped' } })).toEqual([
      { type: 'ForwardRuleUpdated', data: { ruleId: 'r1', ...rule, status: 'stopped' } },
    ]);
    expect(given([created]).when({ type: 'Delete', id: 'r1' })).toEqual([{ type: 'ForwardRuleDeleted', data: { ruleId: 'r1' } }]);
  });

  it('keep a topic rule: created, edited, deleted', () => {
    const { given } = scenario(mqttAclDecider);
    const created = { type: 'MqttAclCreated', data: { aclId: 'a1', ...acl } } as const;
    expect(given([]).when({ type: 'Create', id: 'a1', fields: acl })).toEqual([created]);
    expect(given([created]).when({ type: 'Update', id: 'a1', fields: { ...acl, access: 'both' } })).toEqual([
      { type: 'MqttAclUpdated', data: { aclId: 'a1', ...acl, access: 'both' } },
    ]);
  });
});

describe('MQTT user decider', () => {
  const { given } = scenario(mqttUserDecider);
  const created: MqttUserEvent = { type: 'MqttUserCreated', data: { mqttUserId: 'u1', username: 'scada', remark: null } };

  it('creates a user once, and edits only its remark: the username stays', () => {
    expect(given([]).when({ type: 'Create', id: 'u1', fields: { username: 'scada', remark: null } })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'Create', id: 'u1', fields: { username: 'other', remark: null } }))).toBe('CONFLICT');
    expect(given([created]).when({ type: 'Update', id: 'u1', remark: 'SCADA of hall 2' })).toEqual([
      { type: 'MqttUserUpdated', data: { mqttUserId: 'u1', username: 'scada', remark: 'SCADA of hall 2' } },
    ]);
    expect(given([created]).when({ type: 'Update', id: 'u1', remark: null })).toEqual([]);
  });

  it('records a password change (the hash is beside the log), and refuses anything on a deleted user', () => {
    expect(given([created]).when({ type: 'ChangePassword', id: 'u1' })).toEqual([
      { type: 'MqttUserPasswordChanged', data: { mqttUserId: 'u1' } },
    ]);
    const deleted: MqttUserEvent = { type: 'MqttUserDeleted', data: { mqttUserId: 'u1' } };
    expect(given([created]).when({ type: 'Delete', id: 'u1' })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'ChangePassword', id: 'u1' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([]).when({ type: 'Update', id: 'u1', remark: 'x' }))).toBe('NOT_FOUND');
  });
});
