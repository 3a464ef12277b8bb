import type { GroupType } from '@iot/contracts';
import type { DomainEvent } from '../decider.ts';

export interface GroupFields {
  name: string;
  type: GroupType;
  location: string | null;
  sort: number;
  parentId: string | null;
}

export type GroupEvent =
  | DomainEvent<'GroupCreated', GroupFields & { groupId: string }>
  | DomainEvent<'GroupUpdated', GroupFields & { groupId: string }>
  | DomainEvent<'GroupDeleted', { groupId: string }>;

export type GroupEventType = GroupEvent['type'];

export interface GroupState {
  exists: boolean;
  deleted: boolean;
  fields: GroupFields | null;
}

export const initialState: GroupState = { exists: false, deleted: false, fields: null };

export function evolve(state: GroupState, event: GroupEvent): GroupState {
  switch (event.type) {
    case 'GroupCreated':
    case 'GroupUpdated': {
      const { groupId: _id, ...fields } = event.data;
      return { exists: true, deleted: false, fields };
    }
    case 'GroupDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
