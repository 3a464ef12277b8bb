import type { GroupEvent, GroupFields } from '@iot/contracts';

export type { GroupEvent, GroupFields };

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
