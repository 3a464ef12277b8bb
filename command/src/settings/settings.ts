import type { SettingsEvent } from '@iot/contracts';

export type { SettingsEvent };

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
