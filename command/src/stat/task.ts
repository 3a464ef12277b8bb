import type { EnabledStatus, StatTaskEvent, StatTaskFields } from '@iot/contracts';

export type { StatTaskEvent, StatTaskFields };

export interface StatTaskState {
  exists: boolean;
  deleted: boolean;
  status: EnabledStatus;
  fields: StatTaskFields | null;
  /** The latest backfill asked for, and whether it was cancelled (its progress and end are its worker's). */
  backfill: { id: string; cancelled: boolean } | null;
}

export const initialState: StatTaskState = { exists: false, deleted: false, status: 'stopped', fields: null, backfill: null };

export function evolve(state: StatTaskState, event: StatTaskEvent): StatTaskState {
  switch (event.type) {
    case 'StatTaskCreated': {
      const { taskId: _id, enabled, ...fields } = event.data;
      return { exists: true, deleted: false, status: enabled ? 'enabled' : 'stopped', fields, backfill: null };
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
    case 'StatTaskBackfillRequested':
      return { ...state, backfill: { id: event.data.backfillId, cancelled: false } };
    case 'StatTaskBackfillCancelled':
      return state.backfill?.id === event.data.backfillId ? { ...state, backfill: { ...state.backfill, cancelled: true } } : state;
    default:
      return state;
  }
}
