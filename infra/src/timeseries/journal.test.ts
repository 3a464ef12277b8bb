import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { openFileJournal } from './journal.ts';

const row = (variable: string, value: number): TelemetryRow => ({
  tenantId: 't1',
  deviceId: 'd1',
  productId: 'p1',
  variable,
  ts: new Date(1_700_000_000_000 + value),
  value,
  text: null,
  retentionDays: 30,
});

/** A store that keeps what it is given and drops an insert whose token it has seen (as ClickHouse's window does). */
function fakeStore() {
  const rows: TelemetryRow[] = [];
  const tokens = new Set<string>();
  return {
    rows,
    tokens,
    insert: async (batch: TelemetryRow[], token: string) => {
      if (tokens.has(token)) return;
      tokens.add(token);
      rows.push(...batch);
    },
  };
}

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'journal-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('telemetry journal', () => {
  it('inserts at start the batches a journal of an earlier release (rows as JSON arrays) left unmarked', async () => {
    const dir = tempDir();
    const old = [['t1', 'd1', 'p1', 'a', 1_700_000_000_001, 1, null, 30, 0, null]];
    writeFileSync(join(dir, 'journal-1.log'), `${JSON.stringify({ t: 'old-1', at: 1, k: ['key-1'], r: old })}\n`);
    const store = fakeStore();
    const journal = openFileJournal({ dir });
    expect(await journal.recover(store.insert)).toMatchObject({ batches: 1, rows: 1 });
    expect(store.rows).toEqual([row('a', 1)]);
    await journal.close();
  });

  it('belongs to one process: a second one is refused while the first runs, and takes over from one that is gone', async () => {
    const dir = tempDir();
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'lock'), String(other.pid));
      expect(() => openFileJournal({ dir })).toThrow(`held by process ${other.pid}`);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
    // The holder is gone: its lock is taken over, and given back at close.
    const sut = openFileJournal({ dir });
    await sut.close();
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it('refuses to write before it has recovered', async () => {
    const journal = openFileJournal({ dir: tempDir() });
    await expect(journal.write([row('a', 1)], ['k1'], fakeStore().insert)).rejects.toThrow(/recover/);
  });

  it('holds the keys of what it wrote, and a new run inserts only the batch whose insert was not marked', async () => {
    const dir = tempDir();
    const store = fakeStore();
    let crash = false;
    const first = openFileJournal({
      dir,
      afterInsert: () => {
        if (crash) throw new Error('killed between insert and PUBACK');
      },
    });
    await first.recover(store.insert);
    await first.write([row('a', 1), row('b', 2)], ['k1', 'k2'], store.insert);
    expect(first.holds('k1', true)).toBe(true);
    expect(first.holds('k3', true)).toBe(false);
    crash = true;
    // Stored, but the process "dies" before the mark: the rows are in the store once.
    await expect(first.write([row('a', 3)], ['k3'], store.insert)).rejects.toThrow(/killed/);
    await first.close();
    expect(store.rows).toHaveLength(3);

    const second = openFileJournal({ dir });
    const recovered = await second.recover(store.insert);
    expect(recovered).toMatchObject({ batches: 1, rows: 1 });
    // The batch went again with its own token, which the store dropped: still three rows.
    expect(store.rows).toHaveLength(3);
    expect(second.holds('k1', true) && second.holds('k2', true) && second.holds('k3', true)).toBe(true);
    await second.close();

    // A third run finds the batch marked (the mark of the recovery): nothing inserted again, even with a fresh store.
    const empty = fakeStore();
    const third = openFileJournal({ dir });
    expect(await third.recover(empty.insert)).toMatchObject({ batches: 0 });
    expect(empty.rows).toHaveLength(0);
    expect(third.holds('k3', true)).toBe(true);
    await third.close();
  });

  it('hands back at start the stored batches the rule chains had not marked, with their messages, until they are marked', async () => {
    const dir = tempDir();
    const store = fakeStore();
    const first = openFileJournal({ dir, chains: true });
    await first.recover(store.insert);
    const ran = await first.write([row('a', 1)], ['k1'], store.insert, [1]);
    await first.write([row('a', 2), row('b', 2), row('a', 3)], ['k2', 'k3'], store.insert, [2, 1]);
    first.chained(ran);
    await first.close();

    // The second batch was stored and never went through the chains: it comes back, its two messages told apart.
    const second = openFileJournal({ dir, chains: true });
    const { unchained } = await second.recover(store.insert);
    expect(unchained.map((b) => [b.rows.map((r) => r.value), b.sizes])).toEqual([
      [
        [2, 2, 3],
        [2, 1],
      ],
    ]);
    second.chained(unchained[0]!.token);
    await second.close();
    expect(store.rows).toHaveLength(4);

    const third = openFileJournal({ dir, chains: true });
    expect((await third.recover(store.insert)).unchained).toEqual([]);
    await third.close();
  });

  it("matches a resend without the DUP flag only against the last run's final seconds, and only once", async () => {
    const dir = tempDir();
    const store = fakeStore();
    let at = 1_000_000;
    const first = openFileJournal({ dir, now: () => at });
    await first.recover(store.insert);
    await first.write([row('a', 1)], ['old'], store.insert);
    at += 60_000;
    await first.write([row('a', 2)], ['recent'], store.insert);
    // Within the run, a message without the flag is a new message.
    expect(first.holds('recent', false)).toBe(false);
    await first.close();
    const second = openFileJournal({ dir });
    await second.recover(store.insert);
    expect(second.holds('old', false)).toBe(false);
    expect(second.holds('recent', false)).toBe(true);
    expect(second.holds('recent', false)).toBe(false);
    expect(second.holds('old', true)).toBe(true);
    await second.close();
  });

  it('inserts a batch journaled whose insert never ended (the process died in it), with the rows as they were', async () => {
    const dir = tempDir();
    const first = openFileJournal({ dir });
    await first.recover(fakeStore().insert);
    let entered: () => void = () => undefined;
    const inInsert = new Promise<void>((resolve) => (entered = resolve));
    // The insert never returns: the process is gone from here on.
    void first.write([row('a', 7)], ['k7'], () => (entered(), new Promise<void>(() => undefined)));
    await inInsert;
    await first.close();
    const store = fakeStore();
    const second = openFileJournal({ dir });
    await second.recover(store.insert);
    expect(store.rows).toEqual([row('a', 7)]);
    expect(second.holds('k7', true)).toBe(true);
    await second.close();
  });

  it('forgets the keys of a batch whose insert failed, now and at the next start, and does not insert it then', async () => {
    const dir = tempDir();
    const store = fakeStore();
    const first = openFileJournal({ dir });
    await first.recover(store.insert);
    await expect(first.write([row('a', 5)], ['k5'], () => Promise.reject(new Error('store down')))).rejects.toThrow(/down/);
    expect(first.holds('k5', true)).toBe(false);
    await first.close();
    const second = openFileJournal({ dir });
    expect(await second.recover(store.insert)).toMatchObject({ batches: 0, keys: 0 });
    expect(store.rows).toHaveLength(0);
    expect(second.holds('k5', true) || second.holds('k5', false)).toBe(false);
    await second.close();
  });

  it('keeps the newest files only, and forgets the keys of the ones it deletes', async () => {
    const dir = tempDir();
    const store = fakeStore();
    const journal = openFileJournal({ dir, maxFileBytes: 200, generations: 2 });
    await journal.recover(store.insert);
    for (let i = 0; i < 20; i++) await journal.write([row('a', i)], [`k${i}`], store.insert);
    await journal.close();
    expect(readdirSync(dir).length).toBeLessThanOrEqual(2);
    expect(journal.holds('k19', true)).toBe(true);
    expect(journal.holds('k0', true)).toBe(false);
    expect(store.rows).toHaveLength(20);
  });
});
