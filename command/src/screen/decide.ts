import { DomainError, SCREEN_SHARE_LIMIT, type ScreenEvent, type ScreenWidget } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/** A big screen as its decider sees it: created or not, deleted or not, its name, layout and share links. */
export interface ScreenState {
  exists: boolean;
  deleted: boolean;
  name: string;
  widgets: ScreenWidget[];
  /** Share links not revoked, with when each expires (ISO 8601). */
  shares: Record<string, string>;
}
export const initialState: ScreenState = { exists: false, deleted: false, name: '', widgets: [], shares: {} };

export function evolve(state: ScreenState, event: ScreenEvent): ScreenState {
  switch (event.type) {
    case 'ScreenCreated':
      return { exists: true, deleted: false, name: event.data.name, widgets: event.data.widgets, shares: {} };
    case 'ScreenRenamed':
      return { ...state, name: event.data.name };
    case 'ScreenLayoutSaved':
      return { ...state, widgets: event.data.widgets };
    case 'ScreenDeleted':
      return { ...state, deleted: true, shares: {} };
    case 'ScreenShared':
      return { ...state, shares: { ...state.shares, [event.data.shareId]: event.data.expiresAt } };
    case 'ScreenShareRevoked': {
      const { [event.data.shareId]: _gone, ...shares } = state.shares;
      return { ...state, shares };
    }
    default:
      return state;
  }
}

export type ScreenCommand =
  | { type: 'CreateScreen'; screenId: string; name: string; widgets: ScreenWidget[] }
  | { type: 'RenameScreen'; screenId: string; name: string }
  | { type: 'SaveScreenLayout'; screenId: string; widgets: ScreenWidget[] }
  | { type: 'DeleteScreen'; screenId: string }
  /**
   * `tokenHash`: the SHA-256 of the link's fresh random secret; `now`: the time the live links are counted at;
   * `stationId`: the group the sharer is narrowed to, that the link stays narrowed to.
   */
  | { type: 'ShareScreen'; screenId: string; shareId: string; tokenHash: string; expiresAt: string; stationId: string | null; now: string }
  | { type: 'RevokeScreenShare'; screenId: string; shareId: string };

const live = (state: ScreenState): ScreenState => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
  return state;
};

export function decide(command: ScreenCommand, state: ScreenState): ScreenEvent[] {
  const { screenId } = command;
  switch (command.type) {
    case 'CreateScreen':
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'ScreenCreated', data: { screenId, name: command.name, widgets: command.widgets } }];
    case 'RenameScreen':
      if (live(state).name === command.name) return [];
      return [{ type: 'ScreenRenamed', data: { screenId, name: command.name } }];
    case 'SaveScreenLayout':
      if (sameValue(live(state).widgets, command.widgets)) return [];
      return [{ type: 'ScreenLayoutSaved', data: { screenId, widgets: command.widgets } }];
    case 'DeleteScreen':
      live(state);
      return [{ type: 'ScreenDeleted', data: { screenId } }];
    case 'ShareScreen': {
      const liveLinks = Object.values(live(state).shares).filter((expiresAt) => expiresAt > command.now);
      if (liveLinks.length >= SCREEN_SHARE_LIMIT) throw new DomainError('SCREEN_SHARE_LIMIT');
      const { shareId, tokenHash, expiresAt, stationId } = command;
      return [{ type: 'ScreenShared', data: { screenId, shareId, tokenHash, expiresAt, stationId } }];
    }
    case 'RevokeScreenShare':
      if (!(command.shareId in live(state).shares)) throw new DomainError('NOT_FOUND');
      return [{ type: 'ScreenShareRevoked', data: { screenId, shareId: command.shareId } }];
    default:
      return unreachable(command);
  }
}

export const screenDecider: Decider<ScreenCommand, ScreenEvent, ScreenState> = { initialState, evolve, decide };
export const screenStream = (tenantId: string, screenId: string) => `screen-${tenantId}.${screenId}`;
