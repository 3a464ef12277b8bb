import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { TelemetryJournal } from '@iot/contracts/ports/telemetry-journal.ts';
import type { TelemetryQuality, TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { decodeRowBinary, encodeRowBinary } from './rowbinary.ts';

/**
 * The telemetry journal (contracts/src/ports/telemetry-journal.ts) as files under `DATA_DIR/telemetry-journal`:
 * one JSON line per batch (`{"t":token,"h":[key hashes],"b":rows}`, the rows as the insert's RowBinary in base64), flushed to disk before the insert, and a line
 * `{"c":token}` after it. A file is closed after `maxFileBytes`; the newest `generations` files are kept, so the
 * journal names the messages of the last few hundred MB of telemetry (minutes at full rate, hours at a fleet's
 * usual one): a device that resends later than that is stored twice, as before.
 *
 * A batch journaled and not marked is inserted again at start with its own token. The store drops an insert
 * whose token is among its last `DEDUPLICATION_WINDOW` (1,000) inserts: the unmarked batches are the last
 * few before the crash, well inside it.
 */
export interface FileJournalOptions {
  dir: string;
  /** A file is closed past this size. */
  maxFileBytes?: number;
  /** Files kept (the open one included). */
  generations?: number;
  /** After each insert, before its mark and the acknowledgements (fault injection for the crash tests). */
  afterInsert?: () => void;
  /**
   * The rule chains run each batch after its insert and mark it (`chained`): batches are journaled as awaiting that
   * mark, and a start hands back those that miss it. Off: no batch awaits a mark.
   */
  chains?: boolean;
  /** The last run's final this many ms: messages resent without the DUP flag are matched against them (default 30 s). */
  tailMs?: number;
  now?: () => number;
}

/** A row on disk in journals of earlier releases (`r`): [tenant, device, product, variable, ts ms, value, text, retention days, quality, raw]. */
type JournalRow = [string, string, string, string, number, number | null, string | null, number, TelemetryQuality | 0, string | null];
const fromJournal = ([
  tenantId,
  deviceId,
  productId,
  variable,
  ts,
  value,
  text,
  retentionDays,
  quality,
  raw,
]: JournalRow): TelemetryRow => ({
  tenantId,
  deviceId,
  productId,
  variable,
  ts: new Date(ts),
  value,
  text,
  ...(retentionDays ? { retentionDays } : {}),
  ...(quality ? { quality } : {}),
  ...(raw !== null ? { raw } : {}),
});

interface Generation {
  file: string;
  /** The keys' hashes (a number takes a fraction of a string's memory; 52 bits make a false match out of reach). */
  keys: Set<number>;
}

/** Two FNV-1a hashes of the key folded into 52 bits. */
function hashOf(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 12) * 0x1_0000_0000 + (b >>> 0);
}

const FILE = /^journal-(\d+)\.log$/;
const NEWLINE = Buffer.from('\n');
const LINE_END = Buffer.from('"}');

/** A stored batch the rule chains had not finished when the last run stopped. */
export interface UnchainedBatch {
  token: string;
  rows: TelemetryRow[];
  /** Rows per message, in order. */
  sizes: number[];
}

export interface FileJournal extends TelemetryJournal {
  /**
   * Inserts the batches journaled and not marked inserted (a crash came between); run once, before messages are
   * taken. Answers too the batches that awaited the rule chains' mark and miss it, oldest first, to run again.
   */
  recover(
    insert: (rows: TelemetryRow[], dedupToken: string) => Promise<void>,
  ): Promise<{ batches: number; rows: number; keys: number; tail: number; unchained: UnchainedBatch[] }>;
  close(): Promise<void>;
}

/** Whether a process of this id is running (a lock left by one that is gone may be taken over). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process per journal: two ingest processes sharing a folder (the same DATA_DIR and MQTT_CLIENT_ID) would take
 * each other's batches for their own at start. The folder's `lock` names its process; one that is gone is replaced.
 */
function lockJournal(dir: string): () => void {
  const lock = join(dir, 'lock');
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(readFileSync(lock, 'utf8').trim());
    if (holder !== process.pid && Number.isInteger(holder) && holder > 0 && alive(holder))
      throw new Error(
        `the telemetry journal ${dir} is held by process ${holder}: give each ingest process its own MQTT_CLIENT_ID or DATA_DIR`,
        { cause: error },
      );
    writeFileSync(lock, String(process.pid));
  }
  return () => rmSync(lock, { force: true });
}

export function openFileJournal(options: FileJournalOptions): FileJournal {
  const { dir } = options;
  const maxFileBytes = options.maxFileBytes ?? 32 * 1024 * 1024;
  const keep = Math.max(2, options.generations ?? 3);
  mkdirSync(dir, { recursive: true });
  const unlock = lockJournal(dir);
  /** Tokens of this run: no earlier run's token can repeat (the store would drop the batch). */
  const boot = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
  let seq = 0;
  const existing = readdirSync(dir)
    .map((name) => ({ name, n: Number(FILE.exec(name)?.[1] ?? NaN) }))
    .filter((f) => Number.isFinite(f.n))
    .sort((a, b) => a.n - b.n);
  let fileNo = existing.length > 0 ? existing[existing.length - 1]!.n : 0;
  const generations: Generation[] = existing.map((f) => ({ file: join(dir, f.name), keys: new Set() }));
  let handle: FileHandle | null = null;
  let size = 0;
  /** Writes to the file one at a time, in order (a batch's line, then its mark). */
  let queue: Promise<unknown> = Promise.resolve();
  let recovered = false;
  const now = options.now ?? Date.now;
  const tailMs = options.tailMs ?? 30_000;
  /**
   * The keys of the last run's final seconds: a client that resends without the DUP flag sends these, if any.
   * Each matches once (a later message of a client with a fixed packet id and the same payload is a new one).
   */
  const tail = new Set<number>();

  /** A line (without its newline), or its parts as bytes (a batch's: its rows are megabytes, written as they are). */
  const append = (line: string | Buffer[], sync: boolean): Promise<void> => {
    const next = queue.then(async () => {
      if (!handle || size >= maxFileBytes) await rotate();
      const parts = typeof line === 'string' ? [Buffer.from(line), NEWLINE] : [...line, NEWLINE];
      let length = 0;
      for (const part of parts) length += part.length;
      const { bytesWritten } = await handle!.writev(parts);
      size += bytesWritten;
      // A short write (a full disk) leaves a line that does not parse: the batch is neither journaled nor acknowledged.
      if (bytesWritten !== length) throw new Error(`telemetry journal: wrote ${bytesWritten} of ${length} bytes`);
      if (sync) await handle!.datasync();
    });
    queue = next.catch(() => undefined);
    return next;
  };

  async function rotate(): Promise<void> {
    await handle?.close();
    fileNo += 1;
    const file = join(dir, `journal-${fileNo}.log`);
    handle = await open(file, 'a');
    size = 0;
    generations.push({ file, keys: new Set() });
    while (generations.length > keep) rmSync(generations.shift()!.file, { force: true });
  }

  return {
    holds(key, dup) {
      if (!dup) return tail.size > 0 && tail.delete(hashOf(key));
      const hash = hashOf(key);
      for (let i = generations.length - 1; i >= 0; i--) if (generations[i]!.keys.has(hash)) return true;
      return false;
    },

    async write(rows, keys, insert, sizes) {
      if (!recovered) throw new Error('telemetry journal: recover() before writing');
      const token = `j-${boot}-${seq++}`;
      const chained = options.chains ? `,"x":1,"s":${JSON.stringify(sizes ?? [rows.length])}` : '';
      // The keys as their hashes (`h`), which are all the journal ever compares: a number is a fraction of a key's
      // bytes on disk and of its JSON escaping, for every message. The rows as the insert's own RowBinary (encoded
      // once: the insert below writes these bytes), in base64.
      const hashes = keys.map(hashOf);
      // In parts: the base64 copied once into bytes (latin1), not joined into one string first and encoded again.
      await append(
        [
          Buffer.from(`{"t":${JSON.stringify(token)},"at":${now()},"h":[${hashes.join(',')}]${chained},"b":"`),
          Buffer.from(encodeRowBinary(rows).toString('base64'), 'latin1'),
          LINE_END,
        ],
        true,
      );
      // The keys count from the moment the batch is on disk: a crash from here on stores it at the next start.
      const keysOf = generations[generations.length - 1]!.keys;
      for (const hash of hashes) keysOf.add(hash);
      try {
        await insert(rows, token);
      } catch (error) {
        // Not stored, and not acknowledged: the messages are the caller's to send again (or the device's), so their
        // keys must not hold, and the next start must neither insert the batch nor count its keys.
        for (const hash of hashes) keysOf.delete(hash);
        await append(JSON.stringify({ c: token, failed: true }), true).catch(() => undefined);
        throw error;
      }
      options.afterInsert?.();
      // Not flushed, nor waited for: a mark lost in a crash only makes the next start insert the batch again, which the
      // token drops. Waiting would hold the acknowledgement behind the next batch's fsync, queued before the mark
      // while this batch inserted (ingest/src/pipeline.ts overlaps them).
      void append(JSON.stringify({ c: token }), false).catch(() => undefined);
      return token;
    },

    chained(token) {
      // Not flushed either: a mark lost runs the batch through the chains once more (at least once).
      void append(JSON.stringify({ x: token }), false).catch(() => undefined);
    },

    async recover(insert) {
      let batches = 0;
      let rowCount = 0;
      let keyCount = 0;
      /** Batches journaled and not (yet) marked, in order; a mark may sit in a later file than its batch. */
      const pending = new Map<string, TelemetryRow[]>();
      /** Every batch's time and keys, for the tail, and where its keys go. */
      const batchesSeen = new Map<string, { at: number; keys: number[]; generation: Generation }>();
      /** Batches whose insert failed while the process lived: neither inserted now nor holding their keys. */
      const failed = new Set<string>();
      /** Batches that awaited the chains' mark, until it is read. */
      const unchained = new Map<string, { rows: TelemetryRow[]; sizes: number[] }>();
      for (const generation of generations) {
        let text: string;
        try {
          text = readFileSync(generation.file, 'utf8');
        } catch {
          continue;
        }
        for (const line of text.split('\n')) {
          if (line.length === 0) continue;
          let entry: {
            t?: string;
            at?: number;
            k?: string[];
            h?: number[];
            b?: string;
            r?: JournalRow[];
            c?: string;
            failed?: boolean;
            x?: string | 1;
            s?: number[];
          };
          try {
            entry = JSON.parse(line) as typeof entry;
          } catch {
            // The line being written when the process died: its insert never started (the line is flushed first).
            continue;
          }
          if (entry.c !== undefined) {
            pending.delete(entry.c);
            if (entry.failed) {
              failed.add(entry.c);
              unchained.delete(entry.c);
            }
          } else if (typeof entry.x === 'string') unchained.delete(entry.x);
          else if (entry.t !== undefined) {
            const rows = entry.b !== undefined ? decodeRowBinary(Buffer.from(entry.b, 'base64')) : (entry.r ?? []).map(fromJournal);
            pending.set(entry.t, rows);
            if (entry.x === 1) unchained.set(entry.t, { rows, sizes: entry.s ?? [rows.length] });
            // Keys as hashes (`h`), or as the keys themselves in journals of earlier releases (`k`).
            batchesSeen.set(entry.t, { at: entry.at ?? 0, keys: entry.h ?? (entry.k ?? []).map(hashOf), generation });
          }
        }
      }
      const kept = [...batchesSeen].filter(([token]) => !failed.has(token)).map(([, batch]) => batch);
      const last = kept.reduce((max, batch) => Math.max(max, batch.at), 0);
      for (const batch of kept) {
        for (const hash of batch.keys) batch.generation.keys.add(hash);
        if (batch.at >= last - tailMs) for (const hash of batch.keys) tail.add(hash);
        keyCount += batch.keys.length;
      }
      for (const [token, rows] of pending) {
        if (rows.length > 0) await insert(rows, token);
        batches += 1;
        rowCount += rows.length;
      }
      recovered = true;
      // The marks of what was just inserted go into a new file (the old ones are read-only from here on): a later
      // start must not insert them again, when the store's window no longer holds their tokens.
      await queue.then(rotate);
      for (const token of pending.keys()) await append(JSON.stringify({ c: token }), false);
      if (pending.size > 0) await queue.then(() => handle!.datasync());
      return {
        batches,
        rows: rowCount,
        keys: keyCount,
        tail: tail.size,
        unchained: [...unchained].map(([token, batch]) => ({ token, rows: batch.rows, sizes: batch.sizes })),
      };
    },

    async close() {
      await queue;
      await handle?.close();
      handle = null;
      unlock();
    },
  };
}
