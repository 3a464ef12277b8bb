import { DomainError, limits, pngDimensions } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type SettingsEvent, type SettingsState } from './settings.ts';

/**
 * The logo command carries what the decider needs to judge the file: its size, its first bytes (signature and
 * IHDR chunk, PNG_HEAD_BYTES of them) and its hash.
 */
export type SettingsCommand =
  { type: 'ChangeSystemName'; systemName: string } | { type: 'ChangeSystemLogo'; sha256: string; bytes: number; head: number[] };

export function decide(command: SettingsCommand, state: SettingsState): SettingsEvent[] {
  switch (command.type) {
    case 'ChangeSystemName':
      if (command.systemName === state.systemName) return [];
      return [{ type: 'SystemNameChanged', data: { systemName: command.systemName } }];
    case 'ChangeSystemLogo': {
      if (command.bytes > limits.logo.maxBytes) throw new DomainError('LOGO_TOO_LARGE');
      // Whatever its name or declared type, a file is a PNG only if its own bytes say so.
      const size = pngDimensions(command.head);
      if (!size) throw new DomainError('LOGO_NOT_PNG');
      if (command.sha256 === state.logo) return [];
      return [{ type: 'SystemLogoChanged', data: { sha256: command.sha256, bytes: command.bytes, ...size } }];
    }
    default:
      return unreachable(command);
  }
}

export const settingsDecider: Decider<SettingsCommand, SettingsEvent, SettingsState> = { initialState, evolve, decide };
export const settingsStream = (tenantId: string) => `settings-${tenantId}.${tenantId}`;
