import { describe, expect, it } from 'vitest';
import type {
  ContactFields,
  DomainEvent,
  NotifyConfigFields,
  NotifySettingsEvent,
  NotifySettingsFields,
  NotifyTemplateFields,
} from '@iot/contracts';
import type { Decider } from '../decider.ts';
import { codeOf, scenario } from '../decider-testing.ts';
import type { RecordCommand, RecordState } from '../shared/record-decider.ts';
import { contactDecider, notifyConfigDecider, notifyTemplateDecider } from './decide.ts';
import { notifySettingsDecider } from './settings.ts';

const contact: ContactFields = { name: 'Duty', phone: null, email: 'duty@example.com', emailActivated: true, wechat: null, remark: null };
const template: NotifyTemplateFields = { code: 'warm', name: 'Too warm', type: 'email', subject: null, content: '{{device}} at {{value}}' };
const config: NotifyConfigFields = {
  name: 'On duty',
  source: 'alarm',
  groupId: null,
  type: 'email',
  templateId: 'tpl1',
  sendWays: ['email'],
  contactIds: ['c1'],
  minLevel: 1,
  status: 'enabled',
};

/** The three records an operator keeps for notifications, each with its events' names, its id field and a change of one field. */
const records = [
  { name: 'contact', decider: contactDecider, events: 'Contact', idField: 'contactId', fields: contact, edit: { name: 'Night duty' } },
  {
    name: 'template',
    decider: notifyTemplateDecider,
    events: 'NotifyTemplate',
    idField: 'templateId',
    fields: template,
    edit: { subject: 'Alarm' },
  },
  {
    name: 'configuration',
    decider: notifyConfigDecider,
    events: 'NotifyConfig',
    idField: 'configId',
    fields: config,
    edit: { minLevel: 3 },
  },
] as const;

describe.each(records)('notification $name decider', ({ decider, events, idField, fields, edit }) => {
  // The three deciders differ only in their fields' and events' types: the cases below are the same for each.
  const { given } = scenario(decider as unknown as Decider<RecordCommand<object>, DomainEvent, RecordState<object>>);
  const created = { type: `${events}Created`, data: { [idField]: 'x1', ...fields } };
  const deleted = { type: `${events}Deleted`, data: { [idField]: 'x1' } };

  it('creates a record, and refuses a second create of its id (CONFLICT), deleted or not', () => {
    expect(given([]).when({ type: 'Create', id: 'x1', fields })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'Create', id: 'x1', fields }))).toBe('CONFLICT');
    expect(codeOf(() => given([created, deleted]).when({ type: 'Create', id: 'x1', fields }))).toBe('CONFLICT');
  });

  it('records an edit that changes a field, and appends nothing for one that changes none, whatever the order of the keys', () => {
    expect(given([created]).when({ type: 'Update', id: 'x1', fields: { ...fields, ...edit } })).toEqual([
      { type: `${events}Updated`, data: { [idField]: 'x1', ...fields, ...edit } },
    ]);
    expect(given([created]).when({ type: 'Update', id: 'x1', fields: Object.fromEntries(Object.entries(fields).reverse()) })).toEqual([]);
  });

  it('takes the last edit as the state an edit is compared with', () => {
    const updated = { type: `${events}Updated`, data: { [idField]: 'x1', ...fields, ...edit } };
    expect(given([created, updated]).when({ type: 'Update', id: 'x1', fields: { ...fields, ...edit } })).toEqual([]);
    expect(given([created, updated]).when({ type: 'Update', id: 'x1', fields })).toEqual([
      { ...updated, data: { [idField]: 'x1', ...fields } },
    ]);
  });

  it('deletes a record once, and refuses to edit or delete one that does not exist or was deleted (NOT_FOUND)', () => {
    expect(given([created]).when({ type: 'Delete', id: 'x1' })).toEqual([deleted]);
    for (const history of [[], [created, deleted]]) {
      expect(codeOf(() => given(history).when({ type: 'Update', id: 'x1', fields }))).toBe('NOT_FOUND');
      expect(codeOf(() => given(history).when({ type: 'Delete', id: 'x1' }))).toBe('NOT_FOUND');
    }
  });
});

const settings: NotifySettingsFields = {
  smtpFrom: 'alarms@example.com',
  smsEndpoint: null,
  smsSignName: null,
  smsTemplateCode: null,
  tenantPerMinute: null,
  contactPerMinute: 20,
  quietHours: null,
};
const saved: NotifySettingsEvent = { type: 'NotifySettingsUpdated', data: { ...settings, secretsChanged: [] } };
const { given: givenSettings } = scenario(notifySettingsDecider);

describe('notification settings decider', () => {
  it("records a tenant's first save, even of the fields it would have by default", () => {
    expect(givenSettings([]).when({ type: 'SaveNotifySettings', fields: settings, secretsChanged: [] })).toEqual([saved]);
  });

  it('records a changed field, and appends nothing for a save that changes no field and no credential', () => {
    expect(
      givenSettings([saved]).when({ type: 'SaveNotifySettings', fields: { ...settings, contactPerMinute: 5 }, secretsChanged: [] }),
    ).toEqual([{ type: 'NotifySettingsUpdated', data: { ...settings, contactPerMinute: 5, secretsChanged: [] } }]);
    const reordered = Object.fromEntries(Object.entries(settings).reverse()) as NotifySettingsFields;
    expect(givenSettings([saved]).when({ type: 'SaveNotifySettings', fields: reordered, secretsChanged: [] })).toEqual([]);
  });

  it('records a changed credential by its name only, even when no field changes', () => {
    expect(givenSettings([saved]).when({ type: 'SaveNotifySettings', fields: settings, secretsChanged: ['smtpUrl'] })).toEqual([
      { type: 'NotifySettingsUpdated', data: { ...settings, secretsChanged: ['smtpUrl'] } },
    ]);
  });
});
