import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alarmRuleFields,
  contactFields,
  notifyConfigFields,
  notifySettingsFields,
  notifyTemplateFields,
  type AlarmEvent,
  type AlarmRaisedData,
  type AlarmRuleEvent,
  type ContactEvent,
  type DeviceEvent,
  type GroupEvent,
  type NotifyConfigEvent,
  type NotifySettingsEvent,
  type NotifyTemplateEvent,
} from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { devicesProjection } from '../device/devices.ts';
import { productsProjection } from '../device/products.ts';
import { groupsProjection } from '../group/groups.ts';
import { alarmsProjection } from './alarms.ts';
import { notifyProjection, notifySettingsProjection } from './notify.ts';
import { notifyInboxSchema, notifyRecordsSchema } from './outbox.ts';
import {
  activeAlarmCounts,
  alarmAddress,
  alarmById,
  anyNotifyRecordOf,
  alarmRulesPage,
  alarmsPage,
  contactsOfTenant,
  contactsPage,
  inboxOf,
  notifyRecordsPage,
  notifyConfigsPage,
  notifySettingsOf,
  notifyTemplateExists,
  notifyTemplateInUse,
  notifyTemplatesPage,
} from './read.ts';
import { alarmRulesProjection } from './rules.ts';

let sut: ReadModel;
const page = (over: Partial<{ page: number; pageSize: number; sort: string; order: 'asc' | 'desc' }> = {}) => ({
  page: 1,
  pageSize: 20,
  order: 'asc' as const,
  ...over,
});

async function raise(tenantId: string, alarmId: string, over: Partial<AlarmRaisedData>, at: string) {
  const data: AlarmRaisedData = {
    alarmId,
    ruleId: null,
    ruleName: null,
    deviceId: `dev-${alarmId}`,
    variable: 'temp',
    type: 'device',
    category: null,
    mode: null,
    level: 3,
    trigger: 'manual',
    threshold: null,
    value: 42.5,
    text: null,
    at,
    faultFlag: false,
    cause: null,
    suggestion: null,
    push: 'firstTime',
    pushIntervalMin: null,
    ...over,
  };
  await sut.given(alarmsProjection, { type: 'AlarmRaised', data } satisfies AlarmEvent, {
    tenantId,
    stream: `alarm-${tenantId}.${alarmId}`,
  });
}
const alarm = (tenantId: string, event: AlarmEvent) => sut.given(alarmsProjection, event, { tenantId });

beforeAll(async () => {
  sut = await readModelOf(
    groupsProjection,
    productsProjection,
    devicesProjection,
    alarmsProjection,
    alarmRulesProjection,
    notifyProjection,
    notifySettingsProjection,
  );
  // Alarms carry their device's group as raised; with no device row it is unknown (null).
  await sut.given(
    devicesProjection,
    {
      type: 'DeviceCreated',
      data: {
        deviceId: 'dev-a2',
        sn: 'SN-2',
        name: 'second',
        productId: 'p1',
        modelVersion: 1,
        nodeType: 'direct',
        groupId: 'east',
        gatewayId: null,
        location: { address: null },
        version: null,
        tags: [],
        remark: null,
        secretHash: 'hash-2',
      },
    } satisfies DeviceEvent,
    { tenantId: 't1' },
  );
  await raise('t1', 'a1', { level: 2 }, '2026-01-01T00:00:00Z');
  await raise('t1', 'a2', { level: 5 }, '2026-01-02T00:00:00Z');
  await raise('t1', 'a3', { level: 5 }, '2026-01-03T00:00:00Z');
  await raise('t2', 'b1', { level: 1 }, '2026-01-04T00:00:00Z');
  await alarm('t1', { type: 'AlarmProcessed', data: { alarmId: 'a2', note: 'looked' } });
  await alarm('t1', { type: 'AlarmCleared', data: { alarmId: 'a3', value: null, at: '2026-01-05T00:00:00Z', auto: true, note: null } });

  const rule = alarmRuleFields.parse({
    name: 'Hot',
    productId: 'p1',
    variable: 'temp',
    type: 'device',
    mode: 'crossUpper',
    threshold: 80,
    level: 4,
  });
  await sut.given(alarmRulesProjection, { type: 'AlarmRuleCreated', data: { ruleId: 'r1', ...rule } } satisfies AlarmRuleEvent, {
    tenantId: 't1',
  });
  await sut.given(
    alarmRulesProjection,
    { type: 'AlarmRuleCreated', data: { ruleId: 'r2', ...rule, name: 'Cold' } } satisfies AlarmRuleEvent,
    { tenantId: 't2' },
  );

  const contact = (contactId: string, name: string, tenantId = 't1') =>
    sut.given(
      notifyProjection,
      {
        type: 'ContactCreated',
        data: { contactId, ...contactFields.parse({ name, email: `${contactId}@mail.test` }) },
      } satisfies ContactEvent,
      { tenantId },
    );
  await contact('c1', 'Zed');
  await contact('c2', 'Amy');
  await contact('c9', 'Other', 't2');
  const template = (templateId: string, code: string, name: string) =>
    sut.given(
      notifyProjection,
      {
        type: 'NotifyTemplateCreated',
        data: { templateId, ...notifyTemplateFields.parse({ code, name, type: 'email', content: 'Alarm {{device}}' }) },
      } satisfies NotifyTemplateEvent,
      { tenantId: 't1' },
    );
  await template('tp1', 'HOT-MAIL', 'Hot mail');
  await template('tp2', 'spare', 'Spare');
  await sut.given(
    groupsProjection,
    {
      type: 'GroupCreated',
      data: { groupId: 'east', name: 'East', type: 'office', location: null, sort: 0, parentId: null },
    } satisfies GroupEvent,
    { tenantId: 't1' },
  );
  const config = notifyConfigFields.parse({
    name: 'On call',
    source: 'alarm',
    groupId: 'east',
    type: 'email',
    templateId: 'tp1',
    sendWays: ['email'],
    contactIds: ['c1', 'c2'],
  });
  await sut.given(notifyProjection, { type: 'NotifyConfigCreated', data: { configId: 'n1', ...config } } satisfies NotifyConfigEvent, {
    tenantId: 't1',
  });
  const settings = notifySettingsFields.parse({
    smtpFrom: 'alarms@mail.test',
    tenantPerMinute: 30,
    quietHours: { start: '22:00', end: '07:00', minLevel: 4, timeZone: 'Asia/Shanghai' },
  });
  await sut.given(
    notifySettingsProjection,
    { type: 'NotifySettingsUpdated', data: { ...settings, secretsChanged: [] } } satisfies NotifySettingsEvent,
    { tenantId: 't1' },
  );

  // The outbox as the notification reactor writes it: two in-app messages and an email, one message read by ann.
  await sut.db.query(notifyRecordsSchema);
  await sut.db.query(notifyInboxSchema);
  await sut.db.query(
    `insert into notify_records (tenant_id, source_key, alarm_id, sn, send_way, type, recipient, subject, body, created_at) values
       ('t1', 'alarm:a1', 'a1', 'SN-1', 'inApp', 'email', 'inbox', 'first', 'one', '2026-01-01T00:00:00Z'),
       ('t1', 'alarm:a2', 'a2', 'SN-2', 'inApp', 'email', 'inbox', 'second', 'two', '2026-01-02T00:00:00Z'),
       ('t1', 'alarm:a2', 'a2', 'SN-2', 'email', 'email', 'c1@mail.test', 'second', 'two', '2026-01-03T00:00:00Z'),
       ('t2', 'alarm:b1', 'b1', 'SN-9', 'inApp', 'email', 'inbox', 'other', 'three', '2026-01-04T00:00:00Z')`,
  );
  await sut.db.query(`insert into notify_inbox_reads (record_id, user_id) select id, 'ann' from notify_records where subject = 'first'`);
});
afterAll(async () => sut?.drop());

describe('the alarm read module', () => {
  it('pages a tenant’s active alarms or its history, typed as stored, and none of another tenant', async () => {
    const active = await alarmsPage(sut.db, 't1', { status: 'active' }, page({ sort: 'raisedAt' }));
    expect(active.total).toBe(2);
    expect(active.rows.map((a) => a.id)).toEqual(['a1', 'a2']);
    expect(active.rows[0]).toMatchObject({ tenantId: 't1', level: 2, value: 42.5, status: 'active', count: 1, processedAt: null });
    expect(active.rows[0]!.raisedAt).toBeInstanceOf(Date);
    const history = await alarmsPage(sut.db, 't1', { status: 'cleared' }, page());
    expect(history.rows.map((a) => [a.id, a.clearedBy, a.clearedAt?.toISOString()])).toEqual([['a3', 'auto', '2026-01-05T00:00:00.000Z']]);
  });

  it('filters alarms by group scope, level and whether they were processed', async () => {
    const ids = async (filter: Parameters<typeof alarmsPage>[2]) => (await alarmsPage(sut.db, 't1', filter, page())).rows.map((a) => a.id);
    expect(await ids({ status: 'active', groupIds: ['east'] })).toEqual(['a2']);
    expect(await ids({ status: 'active', level: 2 })).toEqual(['a1']);
    expect(await ids({ status: 'active', processed: true })).toEqual(['a2']);
    expect(await ids({ status: 'active', processed: false })).toEqual(['a1']);
    expect(await ids({ status: 'active', from: '2026-01-02T00:00:00Z' })).toEqual(['a2']);
  });

  it('finds an alarm by id only in its tenant and, when scoped, only in the scope’s groups', async () => {
    expect((await alarmById(sut.db, 't1', 'a2'))?.processNote).toBe('looked');
    expect(await alarmById(sut.db, 't2', 'a2')).toBeNull();
    expect((await alarmById(sut.db, 't1', 'a2', ['east']))?.id).toBe('a2');
    expect(await alarmById(sut.db, 't1', 'a1', ['east'])).toBeNull();
  });

  it('addresses an alarm by its device, that device’s group now and its level, and nothing for an unknown alarm', async () => {
    expect(await alarmAddress(sut.db, 'a1')).toEqual({ deviceId: 'dev-a1', groupId: null, level: 2 });
    expect(await alarmAddress(sut.db, 'none')).toBeNull();
  });

  it('counts a tenant’s active alarms by level, with those not processed', async () => {
    expect(await activeAlarmCounts(sut.db, 't1')).toEqual([
      { level: 2, count: 1, unprocessed: 1 },
      { level: 5, count: 1, unprocessed: 0 },
    ]);
    expect(await activeAlarmCounts(sut.db, 't1', ['east'])).toEqual([{ level: 5, count: 1, unprocessed: 0 }]);
  });

  it('pages a tenant’s alarm rules with their fields as set', async () => {
    const rules = await alarmRulesPage(sut.db, 't1', {}, page());
    expect(rules.rows.map((r) => [r.id, r.fields.name, r.fields.threshold, r.productName])).toEqual([['r1', 'Hot', 80, null]]);
    expect((await alarmRulesPage(sut.db, 't1', { name: 'col' }, page())).total).toBe(0);
  });

  it('pages contacts by name and tells which ids are the tenant’s contacts', async () => {
    const contacts = await contactsPage(sut.db, 't1', {}, page({ sort: 'name' }));
    expect(contacts.rows.map((c) => [c.name, c.email, c.emailActivated])).toEqual([
      ['Amy', 'c2@mail.test', false],
      ['Zed', 'c1@mail.test', false],
    ]);
    expect((await contactsOfTenant(sut.db, 't1', ['c1', 'c9', 'none'])).sort()).toEqual(['c1']);
  });

  it('finds templates by a part of their name or code, and tells whether one is the tenant’s and in use', async () => {
    expect((await notifyTemplatesPage(sut.db, 't1', { name: 'hot-' }, page())).rows.map((t) => t.id)).toEqual(['tp1']);
    expect((await notifyTemplatesPage(sut.db, 't1', { name: 'spa' }, page())).rows.map((t) => t.id)).toEqual(['tp2']);
    expect(await notifyTemplateExists(sut.db, 't1', 'tp2')).toBe(true);
    expect(await notifyTemplateExists(sut.db, 't2', 'tp2')).toBe(false);
    expect(await notifyTemplateInUse(sut.db, 't1', 'tp1')).toBe(true);
    expect(await notifyTemplateInUse(sut.db, 't1', 'tp2')).toBe(false);
  });

  it('pages configurations with their group’s and template’s names and their contacts’ names in order', async () => {
    const configs = await notifyConfigsPage(sut.db, 't1', {}, page());
    expect(configs.rows).toEqual([
      expect.objectContaining({
        id: 'n1',
        groupName: 'East',
        templateName: 'Hot mail',
        contactIds: ['c1', 'c2'],
        contactNames: ['Amy', 'Zed'],
        sendWays: ['email'],
        minLevel: 1,
      }),
    ]);
    expect((await notifyConfigsPage(sut.db, 't2', {}, page())).total).toBe(0);
  });

  it('reads what a tenant set of its notification settings, and nothing for a tenant that set none', async () => {
    expect(await notifySettingsOf(sut.db, 't1')).toEqual({
      smtpFrom: 'alarms@mail.test',
      smsEndpoint: null,
      smsSignName: null,
      smsTemplateCode: null,
      tenantPerMinute: 30,
      contactPerMinute: null,
      quietHours: { start: '22:00', end: '07:00', minLevel: 4, timeZone: 'Asia/Shanghai' },
    });
    expect(await notifySettingsOf(sut.db, 't2')).toBeNull();
  });

  it('pages a tenant’s notification records with the reader’s own read marks, filtered by them', async () => {
    const records = await notifyRecordsPage(sut.db, 't1', 'ann', {}, page({ sort: 'createTime' }));
    expect(records.rows.map((r) => [r.subject, r.sendWay, r.read, r.status])).toEqual([
      ['first', 'inApp', true, 'unsent'],
      ['second', 'inApp', false, 'unsent'],
      ['second', 'email', false, 'unsent'],
    ]);
    expect(typeof records.rows[0]!.id).toBe('string');
    expect(records.rows[0]!.createdAt).toBeInstanceOf(Date);
    expect((await notifyRecordsPage(sut.db, 't1', 'bob', { read: true }, page())).total).toBe(0);
    expect((await notifyRecordsPage(sut.db, 't1', 'ann', { read: false, sendWay: 'inApp' }, page())).rows.map((r) => r.subject)).toEqual([
      'second',
    ]);
    expect((await notifyRecordsPage(sut.db, 't1', 'ann', { sn: 'sn-2' }, page())).total).toBe(2);
  });

  it('counts a reader’s unread in-app messages and lists the latest first', async () => {
    const ann = await inboxOf(sut.db, 't1', 'ann');
    expect(ann.unread).toBe(1);
    expect(ann.latest.map((r) => [r.subject, r.read])).toEqual([
      ['second', false],
      ['first', true],
    ]);
    expect((await inboxOf(sut.db, 't1', 'bob')).unread).toBe(2);
  });

  it('tells whether any of some records is the tenant’s', async () => {
    const ids = (await notifyRecordsPage(sut.db, 't1', 'ann', {}, page())).rows.map((r) => r.id);
    expect(await anyNotifyRecordOf(sut.db, 't1', [...ids, '999999'])).toBe(true);
    expect(await anyNotifyRecordOf(sut.db, 't2', ids)).toBe(false);
  });
});
