import type { DomainEvent } from '../decider.ts';

/** A tenant's system settings (spec §2: system name and logo). The logo's bytes live in a blob table, keyed by their SHA-256. */
export type SettingsEvent =
  DomainEvent<'SystemNameChanged', { systemName: string }> | DomainEvent<'SystemLogoChanged', { sha256: string; bytes: number }>;

export type SettingsEventType = SettingsEvent['type'];

export interface SettingsState {
  systemName: string | null;
  logo: string | null;
}

export const initialState: SettingsState = { systemName: null, logo: null };

export function evolve(state: SettingsState, event: SettingsEvent): SettingsState {
  switch (event.type) {
    case 'SystemNameChanged':
      return { ...state, systemName: event.data.systemName };
    case 'SystemLogoChanged':
      return { ...state, logo: event.data.sha256 };
    default:
      return state;
  }
}
