import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForwardRuleEvent, ForwardServerEvent, ForwardServerFields, MqttAclEvent, MqttUserEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { forwardProjection, mqttAuthProjection } from './forward.ts';
import { forwardOutboxTables } from './outbox.ts';
import {
  enabledForwardRules,
  forwardDeadPage,
  forwardRulesPage,
  forwardServerById,
  forwardServerInUse,
  forwardServersPage,
  mqttAclsOf,
  mqttAclsPage,
  mqttUserByUsername,
  mqttUsersPage,
} from './read.ts';

let sut: ReadModel;
const page = { page: 1, pageSize: 20, order: 'asc' as const };
const mqtt: ForwardServerFields = {
  type: 'mqtt',
  name: 'Plant broker',
  ip: '203.0.113.10',
  port: 1883,
  url: null,
  username: 'plant',
  clientId: 'cloud-1',
  tls: false,
  remark: null,
  hasPassword: true,
};
const http: ForwardServerFields = {
  ...mqtt,
  type: 'http',
  name: 'ERP',
  ip: 'erp.example.com',
  port: 443,
  url: 'https://erp.example.com/in',
  username: null,
  clientId: null,
  tls: true,
  hasPassword: false,
};

beforeAll(async () => {
  sut = await readModelOf(forwardProjection, mqttAuthProjection);
  await sut.db.query(forwardOutboxTables);
  const servers: [string, string, ForwardServerEvent][] = [
    ['t1', '2026-01-01T00:00:00Z', { type: 'ForwardServerCreated', data: { serverId: 's-mqtt', ...mqtt } }],
    ['t1', '2026-01-02T00:00:00Z', { type: 'ForwardServerCreated', data: { serverId: 's-http', ...http } }],
    ['t2', '2026-01-03T00:00:00Z', { type: 'ForwardServerCreated', data: { serverId: 's-theirs', ...mqtt, name: 'Theirs' } }],
    ['t1', '2026-01-04T00:00:00Z', { type: 'ForwardServerUpdated', data: { serverId: 's-mqtt', ...mqtt, port: 8883, tls: true } }],
  ];
  for (const [tenantId, at, event] of servers) await sut.given(forwardProjection, event, { tenantId, at });
  const rule = { productIds: ['p1'], deviceIds: [], messageTypes: ['telemetry' as const], topic: null, payloadTemplate: null };
  const rules: ForwardRuleEvent[] = [
    { type: 'ForwardRuleCreated', data: { ruleId: 'r1', name: 'Readings', serverId: 's-mqtt', status: 'enabled', ...rule } },
    { type: 'ForwardRuleCreated', data: { ruleId: 'r2', name: 'Paused', serverId: 's-http', status: 'stopped', ...rule } },
    { type: 'ForwardRuleCreated', data: { ruleId: 'r3', name: 'Gone', serverId: 's-http', status: 'enabled', ...rule } },
    { type: 'ForwardRuleDeleted', data: { ruleId: 'r3' } },
  ];
  for (const event of rules) await sut.given(forwardProjection, event, { tenantId: 't1' });
  const users: (MqttUserEvent | MqttAclEvent)[] = [
    { type: 'MqttUserCreated', data: { mqttUserId: 'u1', username: 'Scada', remark: null } },
    { type: 'MqttUserCreated', data: { mqttUserId: 'u2', username: 'gone', remark: null } },
    { type: 'MqttAclCreated', data: { aclId: 'a1', mqttUserId: 'u1', topic: 'plant/+/status', access: 'subscribe' } },
    { type: 'MqttAclCreated', data: { aclId: 'a2', mqttUserId: 'u1', topic: 'plant/cmd', access: 'both' } },
    { type: 'MqttAclCreated', data: { aclId: 'a3', mqttUserId: 'u2', topic: 'gone/#', access: 'publish' } },
    { type: 'MqttAclUpdated', data: { aclId: 'a2', mqttUserId: 'u1', topic: 'plant/cmd', access: 'publish' } },
    { type: 'MqttUserDeleted', data: { mqttUserId: 'u2' } },
  ];
  for (const event of users) await sut.given(mqttAuthProjection, event, { tenantId: 't1' });
});
afterAll(async () => sut?.drop());

describe('the forwarding read module', () => {
  it('pages a tenant’s servers of one type, as last edited, never another tenant’s', async () => {
    const mqttPage = await forwardServersPage(sut.db, 't1', { type: 'mqtt' }, page);
    expect(mqttPage.rows.map((s) => [s.id, s.port, s.tls, s.hasPassword])).toEqual([['s-mqtt', 8883, true, true]]);
    expect((await forwardServersPage(sut.db, 't1', { type: 'http', name: 'er' }, page)).rows.map((s) => s.url)).toEqual([
      'https://erp.example.com/in',
    ]);
    expect((await forwardServersPage(sut.db, 't1', { type: 'http', name: 'nothing' }, page)).total).toBe(0);
    expect(await forwardServerById(sut.db, 's-theirs')).toMatchObject({ tenantId: 't2', name: 'Theirs' });
  });

  it('knows which servers rules send to, and the enabled rules with their server’s type', async () => {
    expect(await forwardServerInUse(sut.db, 't1', 's-mqtt')).toBe(true);
    expect(await forwardServerInUse(sut.db, 't2', 's-mqtt')).toBe(false);
    expect((await enabledForwardRules(sut.db)).map((r) => [r.id, r.serverType])).toEqual([['r1', 'mqtt']]);
    expect((await forwardRulesPage(sut.db, 't1', {}, page)).rows.map((r) => [r.name, r.serverName])).toEqual([
      ['Readings', 'Plant broker'],
      ['Paused', 'ERP'],
    ]);
  });

  it('finds an MQTT user by username in any case, with its topic rules; a deleted user’s rules go with it', async () => {
    expect(await mqttUserByUsername(sut.db, 'SCADA')).toMatchObject({ id: 'u1', tenantId: 't1' });
    expect(await mqttUserByUsername(sut.db, 'gone')).toBeNull();
    expect(await mqttAclsOf(sut.db, 'u1')).toEqual(
      expect.arrayContaining([
        { topic: 'plant/+/status', access: 'subscribe' },
        { topic: 'plant/cmd', access: 'publish' },
      ]),
    );
    expect(await mqttAclsOf(sut.db, 'u2')).toEqual([]);
    expect((await mqttUsersPage(sut.db, 't1', {}, page)).rows.map((u) => u.username)).toEqual(['Scada']);
    expect((await mqttAclsPage(sut.db, 't1', { topic: 'status' }, page)).rows.map((a) => [a.topic, a.username])).toEqual([
      ['plant/+/status', 'Scada'],
    ]);
  });

  it('pages a tenant’s dead letters only', async () => {
    await sut.db.query(
      `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload, status, attempts, error)
       values ('t1', 'r1', 's-mqtt', 'd1', '{}', 'dead', 10, 'CONNECT_FAILED'), ('t1', 'r1', 's-mqtt', 'd1', '{}', 'pending', 0, null),
              ('t2', 'r9', 's-theirs', 'd9', '{}', 'dead', 10, 'TIMEOUT')`,
    );
    const dead = await forwardDeadPage(sut.db, 't1', {}, page);
    expect(dead.rows.map((d) => [d.deviceId, d.attempts, d.error])).toEqual([['d1', 10, 'CONNECT_FAILED']]);
  });
});
