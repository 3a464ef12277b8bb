import { describe, expect, it } from 'vitest';
import { codeOf } from '../decider-testing.ts';
import { limits, PNG_SIGNATURE } from '@iot/contracts';
import { settingsDecider } from './decide.ts';

const decide = settingsDecider.decide;

/** A PNG's first bytes: the signature and an IHDR chunk (8-bit RGBA; the CRC is not judged). */
function pngHead(width: number, height: number): number[] {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 6, 0, 0, 0], 16);
  return [...PNG_SIGNATURE, ...ihdr];
}
const logo = (head: number[], bytes = 100) => ({ type: 'ChangeSystemLogo' as const, sha256: 'h', bytes, head });

describe('settings decider', () => {
  it('takes a PNG of at most 2 MB as the logo, with the dimensions of its IHDR chunk (spec §5)', () => {
    expect(decide(logo(pngHead(120, 30)), settingsDecider.initialState)).toEqual([
      { type: 'SystemLogoChanged', data: { sha256: 'h', bytes: 100, width: 120, height: 30 } },
    ]);
    expect(codeOf(() => decide(logo(pngHead(120, 30), limits.logo.maxBytes + 1), settingsDecider.initialState))).toBe('LOGO_TOO_LARGE');
  });
  it('refuses what is not a PNG by its own bytes: another format, a bare signature, a zero dimension', () => {
    for (const head of [
      [0xff, 0xd8, 0xff, 0xe0],
      [...Buffer.from('<!DOCTYPE html><html><body>hi</body></html>')],
      [...PNG_SIGNATURE, ...Buffer.alloc(25, 7)],
      pngHead(0, 30),
      pngHead(120, 30).slice(0, 20),
    ])
      expect(codeOf(() => decide(logo(head), settingsDecider.initialState))).toBe('LOGO_NOT_PNG');
  });
  it('changes the system name only when it differs', () => {
    expect(decide({ type: 'ChangeSystemName', systemName: 'X' }, { systemName: 'X', logo: null })).toEqual([]);
  });
});
