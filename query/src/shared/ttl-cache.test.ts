import { describe, expect, it } from 'vitest';
import { ttlCache } from './ttl-cache.ts';

describe('ttlCache', () => {
  it('keeps a value for its time per key, shares a pending computation, and forgets failures', async () => {
    const cache = ttlCache<number>(1_000, 2);
    let calls = 0;
    const compute = () => Promise.resolve(++calls);
    const [a, b] = await Promise.all([cache('k', compute, 0), cache('k', compute, 10)]);
    expect([a, b, calls]).toEqual([1, 1, 1]);
    expect(await cache('k', compute, 999)).toBe(1);
    expect(await cache('k', compute, 1_000)).toBe(2);
    expect(await cache('other', compute, 1_000)).toBe(3);

    await expect(cache('bad', () => Promise.reject(new Error('down')), 1_000)).rejects.toThrow('down');
    expect(await cache('bad', compute, 1_001)).toBe(4);
    // Bounded: two keys at most, the oldest ('k') went when 'bad' came back.
    expect(await cache('other', compute, 1_002)).toBe(3);
    expect(await cache('k', compute, 1_002)).toBe(5);
  });
});
