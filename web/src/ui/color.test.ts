import { describe, expect, it } from 'vitest';
import { textOn } from './color.ts';

describe('text colour from brightness (spec §9)', () => {
  it('puts white on the theme blue and dark colours, black on light ones', () => {
    expect(textOn('#2E68EA')).toBe('#FFFFFF');
    expect(textOn('#000')).toBe('#FFFFFF');
    expect(textOn('#FFFFFF')).toBe('#000000');
    expect(textOn('#F5D90A')).toBe('#000000');
    expect(textOn('#666666')).toBe('#FFFFFF');
    expect(textOn('#888888')).toBe('#000000');
  });
});
