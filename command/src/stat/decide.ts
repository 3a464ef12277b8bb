import { DomainError, type EnabledStatus } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type StatTaskEvent, type StatTaskFields, type StatTaskState } from './task.ts';

export type StatTaskCommand =
  | { type: 'CreateStatTask'; taskId: string; fields: StatTaskFields; enabled: boolean }
  | { type: 'UpdateStatTask'; taskId: string; fields: StatTaskFields }
  | { type: 'SetStatTaskStatus'; taskId: string; status: EnabledStatus }
  | { type: 'DeleteStatTask'; taskId: string }
  | { type: 'BackfillStatTask'; taskId: string; backfillId: string; from: string; to: string }
  | { type: 'CancelStatTaskBackfill'; taskId: string };

const live = (state: StatTaskState) => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

/** An alarm statistic counts alarms (or distinct alarming devices): folding a value makes no sense there. */
function checkFit(fields: StatTaskFields) {
  if (fields.dataType === 'alarm' && fields.statType !== 'count' && fields.statType !== 'distinctCount')
    throw new DomainError('STAT_TYPE_UNFIT', { field: 'statType' });
}

const sameFields = (a: StatTaskFields, b: StatTaskFields) =>
  (Object.keys(a) as (keyof StatTaskFields)[]).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));

export function decide(command: StatTaskCommand, state: StatTaskState): StatTaskEvent[] {
  switch (command.type) {
    case 'CreateStatTask':
      if (state.exists) throw new DomainError('CONFLICT');
      checkFit(command.fields);
      return [{ type: 'StatTaskCreated', data: { taskId: command.taskId, enabled: command.enabled, ...command.fields } }];
    case 'UpdateStatTask': {
      const current = live(state);
      checkFit(command.fields);
      if (sameFields(command.fields, current)) return [];
      return [{ type: 'StatTaskUpdated', data: { taskId: command.taskId, ...command.fields } }];
    }
    case 'SetStatTaskStatus':
      live(state);
      if (state.status === command.status) return [];
      return [{ type: command.status === 'enabled' ? 'StatTaskEnabled' : 'StatTaskStopped', data: { taskId: command.taskId } }];
    case 'DeleteStatTask':
      live(state);
      return [{ type: 'StatTaskDeleted', data: { taskId: command.taskId } }];
    case 'BackfillStatTask':
      live(state);
      return [
        {
          type: 'StatTaskBackfillRequested',
          data: { taskId: command.taskId, backfillId: command.backfillId, from: command.from, to: command.to },
        },
      ];
    case 'CancelStatTaskBackfill':
      live(state);
      if (!state.backfill) throw new DomainError('NOT_FOUND');
      if (state.backfill.cancelled) return [];
      return [{ type: 'StatTaskBackfillCancelled', data: { taskId: command.taskId, backfillId: state.backfill.id } }];
    default:
      return unreachable(command);
  }
}

export const statTaskDecider: Decider<StatTaskCommand, StatTaskEvent, StatTaskState> = { initialState, evolve, decide };
export const statTaskStream = (tenantId: string, taskId: string) => `statTask-${tenantId}.${taskId}`;
