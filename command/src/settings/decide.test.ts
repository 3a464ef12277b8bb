import { describe, expect, it } from 'vitest';
import { codeOf } from '../decider-testing.ts';
import { limits, PNG_SIGNATURE } from '@iot/contracts';
import { settingsDecider } from './decide.ts';

const decide = settingsDecider.decide;

describe('settings decider', () => {
  it('takes a PNG of at most 2 MB as the logo (spec §5)', () => {
    expect(decide({ type: 'ChangeSystemLogo', sha256: 'h', bytes: 100, head: [...PNG_SIGNATURE] }, settingsDecider.initialState)).toEqual([
      { type: 'SystemLogoChanged', data: { sha256: 'h', bytes: 100 } },
    ]);
    expect(
      codeOf(() =>
        decide(
          { type: 'ChangeSystemLogo', sha256: 'h', bytes: limits.logo.maxBytes + 1, head: [...PNG_SIGNATURE] },
          settingsDecider.initialState,
        ),
      ),
    ).toBe('LOGO_TOO_LARGE');
    expect(
      codeOf(() => decide({ type: 'ChangeSystemLogo', sha256: 'h', bytes: 100, head: [0xff, 0xd8, 0xff] }, settingsDecider.initialState)),
    ).toBe('LOGO_NOT_PNG');
  });
  it('changes the system name only when it differs', () => {
    expect(decide({ type: 'ChangeSystemName', systemName: 'X' }, { systemName: 'X', logo: null })).toEqual([]);
  });
});
