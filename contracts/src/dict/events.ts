import type { DomainEvent } from '../event.ts';
import type { EnabledStatus } from '../identity/common.ts';

export interface DictTypeFields {
  code: string;
  name: string;
  status: EnabledStatus;
  remark: string | null;
}
export interface DictItemFields {
  label: string;
  value: string;
  sort: number;
  status: EnabledStatus;
  remark: string | null;
}

/** A dictionary type and its items are one aggregate: item values are unique within their type. */
export type DictEvent =
  | DomainEvent<'DictTypeCreated', DictTypeFields & { typeId: string }>
  | DomainEvent<'DictTypeUpdated', DictTypeFields & { typeId: string }>
  | DomainEvent<'DictTypeDeleted', { typeId: string }>
  | DomainEvent<'DictItemAdded', DictItemFields & { typeId: string; itemId: string }>
  | DomainEvent<'DictItemUpdated', DictItemFields & { typeId: string; itemId: string }>
  | DomainEvent<'DictItemRemoved', { typeId: string; itemId: string }>;

export type DictEventType = DictEvent['type'];
