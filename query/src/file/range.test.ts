import { describe, expect, it } from 'vitest';
import { byteRangeOf } from './range.ts';

describe('byteRangeOf', () => {
  it('answers the whole file without a header or with one it does not serve as a range', () => {
    expect(byteRangeOf(undefined, 100)).toBeNull();
    expect(byteRangeOf('items=0-5', 100)).toBeNull();
    expect(byteRangeOf('bytes=0-5,10-20', 100)).toBeNull();
    expect(byteRangeOf('bytes=9-3', 100)).toBeNull();
  });

  it('clips a range to the file and reads open and suffix ranges', () => {
    expect(byteRangeOf('bytes=10-19', 100)).toEqual({ start: 10, end: 19 });
    expect(byteRangeOf('bytes=90-200', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRangeOf('bytes=50-', 100)).toEqual({ start: 50, end: 99 });
    expect(byteRangeOf('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRangeOf('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
  });

  it('refuses a range that starts past the end', () => {
    expect(byteRangeOf('bytes=100-', 100)).toBe('unsatisfiable');
    expect(byteRangeOf('bytes=0-', 0)).toBe('unsatisfiable');
    expect(byteRangeOf('bytes=-0', 100)).toBe('unsatisfiable');
  });
});
