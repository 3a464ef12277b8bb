import type { DomainEvent } from '../event.ts';
import type { GroupType } from '../identity/group.ts';

/** What a group is made of, as its events carry it. */
export interface GroupFields {
  name: string;
  type: GroupType;
  location: string | null;
  sort: number;
  parentId: string | null;
}

/** What can happen to a group of a tenant's tree. */
export type GroupEvent =
  | DomainEvent<'GroupCreated', GroupFields & { groupId: string }>
  | DomainEvent<'GroupUpdated', GroupFields & { groupId: string }>
  | DomainEvent<'GroupDeleted', { groupId: string }>;

export type GroupEventType = GroupEvent['type'];
