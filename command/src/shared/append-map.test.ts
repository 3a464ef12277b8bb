import { describe, expect, it } from 'vitest';
import { AppendMap } from './append-map.ts';

describe('AppendMap', () => {
  it('adds without changing the maps it came from', () => {
    const a = AppendMap.empty<string, number>();
    const b = a.with('x', 1);
    const c = b.with('y', 2);
    expect([a.has('x'), b.has('x'), b.has('y'), c.get('y')]).toEqual([false, true, false, 2]);
    expect([...c.entries()]).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
  });

  it('keeps two branches from one map apart (a look-ahead, then the real fold)', () => {
    const base = AppendMap.empty<string, number>().with('x', 1);
    const ahead = base.with('y', 2);
    const real = base.with('z', 3);
    expect([...ahead.keys()]).toEqual(['x', 'y']);
    expect([...real.keys()]).toEqual(['x', 'z']);
    expect(base.has('y') || base.has('z')).toBe(false);
    // Each branch goes on by itself.
    expect([...real.with('w', 4).keys()]).toEqual(['x', 'z', 'w']);
    expect([...ahead.with('w', 5).values()]).toEqual([1, 2, 5]);
  });

  it('replaces a key in a copy, the older map keeping its value', () => {
    const base = AppendMap.empty<string, number>().with('x', 1).with('y', 2);
    const next = base.with('x', 9);
    expect([base.get('x'), next.get('x'), next.get('y')]).toEqual([1, 9, 2]);
    expect([...next.with('z', 3).entries()]).toEqual([
      ['x', 9],
      ['y', 2],
      ['z', 3],
    ]);
  });
});
