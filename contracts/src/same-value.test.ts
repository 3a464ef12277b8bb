import { describe, expect, it } from 'vitest';
import { sameValue } from './same-value.ts';

describe('sameValue', () => {
  it('compares objects by their keys and values, not the order of their keys', () => {
    expect(sameValue({ a: 1, b: { c: [1, 2], d: null } }, { b: { d: null, c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameValue({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });
  it('tells different values apart', () => {
    expect(sameValue({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameValue({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameValue({ a: null }, { a: {} })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameValue([], {})).toBe(false);
  });
});
