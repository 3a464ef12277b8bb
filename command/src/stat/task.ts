import type { EnabledStatus, StatTaskEvent, StatTaskFields } from '@iot/contracts';

export type { StatTaskEvent, StatTaskFields };

export interface StatTaskState {
  exists: boolean;
  deleted: boolean;
  status: EnabledStatus;
  fields: StatTaskFields | null;
}

export const initialState: StatTaskState = { exists: false, deleted: false, status: 'stopped', fields: null };

export function evolve(state: StatTaskState, event: StatTaskEvent): StatTaskState {
  switch (event.type) {
    case 'StatTaskCreated': {
      const { taskId: _id, enabled, ...fields } = event.data;
      return { exists: true, deleted: false, status: enabled ? 'enabled' : 'stopped', fields };
    }
    case 'StatTaskUpdated': {
      const { taskId: _id, ...fields } = event.data;
      return { ...state, fields };
    }
    case 'StatTaskEnabled':
      return { ...state, status: 'enabled' };
    case 'StatTaskStopped':
      return { ...state, status: 'stopped' };
    case 'StatTaskDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
