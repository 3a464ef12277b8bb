import type { AlarmEvent, AlarmRaisedData } from '@iot/contracts';

export type { AlarmEvent };

/** One alarm from its raise to its clearing, with who acknowledged and processed it. */
export interface AlarmState {
  raised: AlarmRaisedData | null;
  active: boolean;
  acknowledged: boolean;
  processed: boolean;
  ticket: { ticketId: string; contactId: string; open: boolean } | null;
}

export const initialState: AlarmState = { raised: null, active: false, acknowledged: false, processed: false, ticket: null };

export function evolve(state: AlarmState, event: AlarmEvent): AlarmState {
  switch (event.type) {
    case 'AlarmRaised':
      return { ...state, raised: event.data, active: true };
    case 'AlarmAcknowledged':
      return { ...state, acknowledged: true };
    case 'AlarmProcessed':
      return { ...state, processed: true };
    case 'AlarmCleared':
      return { ...state, active: false };
    case 'AlarmTicketOpened':
      return { ...state, ticket: { ticketId: event.data.ticketId, contactId: event.data.contactId, open: true } };
    case 'AlarmTicketClosed':
      return state.ticket ? { ...state, ticket: { ...state.ticket, open: false } } : state;
    default:
      return state;
  }
}
