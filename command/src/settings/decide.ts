import { DomainError, limits, PNG_SIGNATURE } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type SettingsEvent, type SettingsState } from './settings.ts';

/** The logo command carries what the decider needs to judge the file: its size, its first bytes and its hash. */
export type SettingsCommand =
  { type: 'ChangeSystemName'; systemName: string } | { type: 'ChangeSystemLogo'; sha256: string; bytes: number; head: number[] };

export function isPng(head: ArrayLike<number>): boolean {
  return PNG_SIGNATURE.every((b, i) => head[i] === b);
}

export function decide(command: SettingsCommand, state: SettingsState): SettingsEvent[] {
  switch (command.type) {
    case 'ChangeSystemName':
      if (command.systemName === state.systemName) return [];
      return [{ type: 'SystemNameChanged', data: { systemName: command.systemName } }];
    case 'ChangeSystemLogo':
      if (command.bytes > limits.logo.maxBytes) throw new DomainError('LOGO_TOO_LARGE');
      if (!isPng(command.head)) throw new DomainError('LOGO_NOT_PNG');
      if (command.sha256 === state.logo) return [];
      return [{ type: 'SystemLogoChanged', data: { sha256: command.sha256, bytes: command.bytes } }];
    default:
      return unreachable(command);
  }
}

export const settingsDecider: Decider<SettingsCommand, SettingsEvent, SettingsState> = { initialState, evolve, decide };
export const settingsStream = (tenantId: string) => `settings-${tenantId}.${tenantId}`;
