import type {
  ContactEvent,
  ContactFields,
  NotifyConfigEvent,
  NotifyConfigFields,
  NotifyTemplateEvent,
  NotifyTemplateFields,
} from '@iot/contracts';
import { recordDecider } from '../shared/record-decider.ts';

export const contactDecider = recordDecider<ContactFields, ContactEvent>(
  { created: 'ContactCreated', updated: 'ContactUpdated', deleted: 'ContactDeleted' },
  'contactId',
);
export const notifyTemplateDecider = recordDecider<NotifyTemplateFields, NotifyTemplateEvent>(
  { created: 'NotifyTemplateCreated', updated: 'NotifyTemplateUpdated', deleted: 'NotifyTemplateDeleted' },
  'templateId',
);
export const notifyConfigDecider = recordDecider<NotifyConfigFields, NotifyConfigEvent>(
  { created: 'NotifyConfigCreated', updated: 'NotifyConfigUpdated', deleted: 'NotifyConfigDeleted' },
  'configId',
);
export const contactStream = (tenantId: string, id: string) => `contact-${tenantId}.${id}`;
export const notifyTemplateStream = (tenantId: string, id: string) => `notifyTemplate-${tenantId}.${id}`;
export const notifyConfigStream = (tenantId: string, id: string) => `notifyConfig-${tenantId}.${id}`;
