import type {
  ContactEvent,
  ContactFields,
  NotifyConfigEvent,
  NotifyConfigFields,
  NotifyTemplateEvent,
  NotifyTemplateFields,
} from '@iot/contracts';
import { recordDecider, type RecordDecider } from '../shared/record-decider.ts';

export const contactDecider = recordDecider<ContactFields>()(
  { created: 'ContactCreated', updated: 'ContactUpdated', deleted: 'ContactDeleted' },
  'contactId',
) satisfies RecordDecider<ContactFields, ContactEvent>;
export const notifyTemplateDecider = recordDecider<NotifyTemplateFields>()(
  { created: 'NotifyTemplateCreated', updated: 'NotifyTemplateUpdated', deleted: 'NotifyTemplateDeleted' },
  'templateId',
) satisfies RecordDecider<NotifyTemplateFields, NotifyTemplateEvent>;
export const notifyConfigDecider = recordDecider<NotifyConfigFields>()(
  { created: 'NotifyConfigCreated', updated: 'NotifyConfigUpdated', deleted: 'NotifyConfigDeleted' },
  'configId',
) satisfies RecordDecider<NotifyConfigFields, NotifyConfigEvent>;
export const contactStream = (tenantId: string, id: string) => `contact-${tenantId}.${id}`;
export const notifyTemplateStream = (tenantId: string, id: string) => `notifyTemplate-${tenantId}.${id}`;
export const notifyConfigStream = (tenantId: string, id: string) => `notifyConfig-${tenantId}.${id}`;
