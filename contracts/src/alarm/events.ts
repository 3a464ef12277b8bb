import type { DomainEvent } from '../event.ts';
import type {
  AlarmMode,
  AlarmRuleFields,
  AlarmTrigger,
  AlarmType,
  ContactFields,
  NotifyConfigFields,
  NotifySecretKey,
  NotifySettingsFields,
  NotifyTemplateFields,
} from './model.ts';

/** An alarm rule (alarm settings): stream `alarmRule-<tenant>.<id>`. */
export type AlarmRuleEvent =
  | DomainEvent<'AlarmRuleCreated', AlarmRuleFields & { ruleId: string }>
  | DomainEvent<'AlarmRuleUpdated', AlarmRuleFields & { ruleId: string }>
  | DomainEvent<'AlarmRuleDeleted', { ruleId: string }>;

/** What an alarm was raised with: the rule's settings at that instant, the device and the triggering value. */
export interface AlarmRaisedData {
  alarmId: string;
  ruleId: string | null;
  ruleName: string | null;
  deviceId: string;
  variable: string | null;
  type: AlarmType;
  category: string | null;
  mode: AlarmMode | null;
  level: number;
  trigger: AlarmTrigger;
  threshold: string | null;
  value: number | null;
  text: string | null;
  /** When the triggering value was measured (the device's clock), not when it was evaluated. */
  at: string;
  faultFlag: boolean;
  cause: string | null;
  suggestion: string | null;
  push: 'firstTime' | 'interval';
  pushIntervalMin: number | null;
  /** The rule's camera: the video read model keeps its snapshot reference for the alarm (absent before cameras existed). */
  cameraId?: string | null;
}

/** One alarm, from its raise to its clearing: stream `alarm-<tenant>.<id>`. */
export type AlarmEvent =
  | DomainEvent<'AlarmRaised', AlarmRaisedData>
  /** A rule with trigger `every`: breaching samples while the alarm is active, counted (coalesced). */
  | DomainEvent<'AlarmRepeated', { alarmId: string; count: number; value: number | null; at: string }>
  | DomainEvent<'AlarmAcknowledged', { alarmId: string }>
  | DomainEvent<'AlarmProcessed', { alarmId: string; note: string }>
  | DomainEvent<'AlarmCleared', { alarmId: string; value: number | null; at: string; auto: boolean; note: string | null }>
  | DomainEvent<'AlarmTicketOpened', { alarmId: string; ticketId: string; contactId: string; note: string | null }>
  | DomainEvent<'AlarmTicketClosed', { alarmId: string; ticketId: string }>;

export type ContactEvent =
  | DomainEvent<'ContactCreated', ContactFields & { contactId: string }>
  | DomainEvent<'ContactUpdated', ContactFields & { contactId: string }>
  | DomainEvent<'ContactDeleted', { contactId: string }>;

export type NotifyTemplateEvent =
  | DomainEvent<'NotifyTemplateCreated', NotifyTemplateFields & { templateId: string }>
  | DomainEvent<'NotifyTemplateUpdated', NotifyTemplateFields & { templateId: string }>
  | DomainEvent<'NotifyTemplateDeleted', { templateId: string }>;

export type NotifyConfigEvent =
  | DomainEvent<'NotifyConfigCreated', NotifyConfigFields & { configId: string }>
  | DomainEvent<'NotifyConfigUpdated', NotifyConfigFields & { configId: string }>
  | DomainEvent<'NotifyConfigDeleted', { configId: string }>;

/**
 * A tenant's notification settings: stream `notifySettings-<tenant>.<tenant>`. The credentials are stored beside the
 * log; the event names only which of them changed.
 */
export type NotifySettingsEvent = DomainEvent<'NotifySettingsUpdated', NotifySettingsFields & { secretsChanged: NotifySecretKey[] }>;

export type AlarmAreaEvent = AlarmRuleEvent | AlarmEvent | ContactEvent | NotifyTemplateEvent | NotifyConfigEvent | NotifySettingsEvent;
