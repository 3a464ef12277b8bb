import { DomainError, type AlarmRaisedData } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type AlarmEvent, type AlarmState } from './alarm.ts';

export type AlarmCommand =
  | { type: 'RaiseAlarm'; data: AlarmRaisedData }
  | { type: 'RepeatAlarm'; count: number; value: number | null; at: string }
  | { type: 'AcknowledgeAlarm' }
  | { type: 'ProcessAlarm'; note: string }
  | { type: 'ClearAlarm'; value: number | null; at: string; auto: boolean; note: string | null }
  | { type: 'OpenTicket'; ticketId: string; contactId: string; note: string | null }
  | { type: 'CloseTicket' };

const raised = (state: AlarmState) => {
  if (!state.raised) throw new DomainError('NOT_FOUND');
  return state.raised;
};

/** Acknowledging, processing or clearing twice changes nothing and records nothing. */
export function decide(command: AlarmCommand, state: AlarmState): AlarmEvent[] {
  switch (command.type) {
    case 'RaiseAlarm':
      if (state.raised) return [];
      return [{ type: 'AlarmRaised', data: command.data }];
    case 'RepeatAlarm': {
      const { alarmId } = raised(state);
      if (!state.active) return [];
      return [{ type: 'AlarmRepeated', data: { alarmId, count: command.count, value: command.value, at: command.at } }];
    }
    case 'AcknowledgeAlarm': {
      const { alarmId } = raised(state);
      return state.acknowledged ? [] : [{ type: 'AlarmAcknowledged', data: { alarmId } }];
    }
    case 'ProcessAlarm': {
      const { alarmId } = raised(state);
      return state.processed ? [] : [{ type: 'AlarmProcessed', data: { alarmId, note: command.note } }];
    }
    case 'ClearAlarm': {
      const { alarmId } = raised(state);
      if (!state.active) return [];
      const { value, at, auto, note } = command;
      return [{ type: 'AlarmCleared', data: { alarmId, value, at, auto, note } }];
    }
    case 'OpenTicket': {
      const { alarmId } = raised(state);
      if (state.ticket?.open) throw new DomainError('CONFLICT');
      const { ticketId, contactId, note } = command;
      return [{ type: 'AlarmTicketOpened', data: { alarmId, ticketId, contactId, note } }];
    }
    case 'CloseTicket': {
      const { alarmId } = raised(state);
      if (!state.ticket?.open) throw new DomainError('NOT_FOUND');
      return [{ type: 'AlarmTicketClosed', data: { alarmId, ticketId: state.ticket.ticketId } }];
    }
    default:
      return unreachable(command);
  }
}

export const alarmDecider: Decider<AlarmCommand, AlarmEvent, AlarmState> = { initialState, evolve, decide };
export const alarmStream = (tenantId: string, alarmId: string) => `alarm-${tenantId}.${alarmId}`;
