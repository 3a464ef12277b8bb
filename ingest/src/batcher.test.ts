import { describe, expect, it } from 'vitest';
import { WriteBatcher } from './batcher.ts';

describe('WriteBatcher', () => {
  it('joins calls made while a write is in flight into the next write, in order', async () => {
    const writes: number[][] = [];
    const sut = new WriteBatcher<number>(async (rows) => {
      writes.push(rows);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }, 100);

    await Promise.all([sut.enqueue([1]), sut.enqueue([2, 3]), sut.enqueue([4]), sut.enqueue([])]);

    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it('splits a write at the row limit', async () => {
    const writes: number[][] = [];
    const sut = new WriteBatcher<number>(async (rows) => void writes.push(rows), 2);

    await sut.enqueue([1, 2, 3, 4, 5]);

    expect(writes).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails only the caller whose rows the engine rejects', async () => {
    const stored: number[] = [];
    const sut = new WriteBatcher<number>(async (rows) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (rows.includes(-1)) throw new Error('bad row');
      stored.push(...rows);
    }, 100);

    const results = await Promise.allSettled([sut.enqueue([1]), sut.enqueue([2]), sut.enqueue([-1]), sut.enqueue([3])]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(stored).toEqual([1, 2, 3]);
  });

  it('flush waits for everything enqueued', async () => {
    const stored: number[] = [];
    const sut = new WriteBatcher<number>(async (rows) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      stored.push(...rows);
    }, 100);

    void sut.enqueue([1]);
    void sut.enqueue([2]);
    await sut.flush();

    expect(stored).toEqual([1, 2]);
  });

  /** Two groups of callers that call again as soon as they are answered, the second arriving during the first write. */
  async function closedLoop(gathering: { maxMs: number; belowRows: number } | null) {
    const writes: number[][] = [];
    const caller = async (id: number) => {
      for (let i = 0; i < 3; i++) {
        await sut.enqueue([id]);
        // The answer's way back to the caller and its next call: a turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    let second: Promise<unknown> | undefined;
    const sut = new WriteBatcher<number>(
      async (rows) => {
        writes.push(rows);
        second ??= Promise.all([caller(3), caller(4)]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
      100,
      gathering,
    );
    await Promise.all([caller(1), caller(2)]);
    await second;
    return writes.map((rows) => rows.length);
  }

  it('without gathering, callers that call again once answered alternate in two halves', async () => {
    expect(await closedLoop(null)).toEqual([1, 3, 1, 3, 1, 3]);
  });

  it('gathers callers that call again once answered into one write', async () => {
    expect(await closedLoop({ maxMs: 50, belowRows: 1000 })).toEqual([2, 4, 4, 2]);
  });

  it('does not wait for callers while many rows wait already', async () => {
    expect(await closedLoop({ maxMs: 50, belowRows: 2 })).toEqual([2, 2, 2, 2, 2, 2]);
  });
  it('begins the next write once the current one hands off, and answers each caller when its own write ends', async () => {
    const events: string[] = [];
    let endFirst = () => undefined as void;
    const sut = new WriteBatcher<number>(async (rows, _tags, _sizes, handOff) => {
      events.push(`begin ${rows.join()}`);
      if (rows[0] === 1) {
        // The journal's fsync is done: the next batch may be journaled while this one inserts.
        handOff();
        await new Promise<void>((resolve) => (endFirst = resolve));
      }
      events.push(`end ${rows.join()}`);
    }, 100);

    const first = sut.enqueue([1]).then(() => events.push('answered 1'));
    await new Promise((resolve) => setImmediate(resolve));
    const second = sut.enqueue([2]).then(() => events.push('answered 2'));
    await second;
    endFirst();
    await first;
    await sut.flush();

    expect(events).toEqual(['begin 1', 'begin 2', 'end 2', 'answered 2', 'end 1', 'answered 1']);
  });

  it('without a hand-off, one write at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const sut = new WriteBatcher<number>(async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
    }, 1);

    await Promise.all([sut.enqueue([1]), sut.enqueue([2]), sut.enqueue([3])]);

    expect(most).toBe(1);
  });
});
