import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { DomainError } from '@iot/contracts';

/**
 * Bounds of an uploaded workbook, checked on its central directory before anything is inflated (issue 24: a 1 MB
 * file that inflates to 1 GiB). A spreadsheet's XML deflates 5 to 30 times; a bomb, about a thousand.
 */
export const XLSX_LIMITS = {
  /** Every part inflated, together. */
  inflatedBytes: 512 * 1024 * 1024,
  /** The shared strings, held in memory while the sheet streams. */
  sharedStringBytes: 128 * 1024 * 1024,
  /** Uncompressed to compressed, for a part over 1 MiB. */
  ratio: 100,
  entries: 10_000,
};

const tooLarge = () => new DomainError('FILE_INFLATED_TOO_LARGE');
const notXlsx = (reason: string) => new DomainError('FILE_TYPE', { reason });

/**
 * The rows of the first sheet of an XLSX file as it streams in, each an array of cell texts (a row's missing cells
 * empty). The file is kept on disk (its directory is at its end); every byte inflated is counted against what the
 * directory declared, so no part inflates past its word, nor the whole past XLSX_LIMITS.
 */
export async function* xlsxSheetRows(source: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'device-import-'));
  try {
    const file = path.join(dir, 'upload.xlsx');
    await pipeline(Readable.from(source), createWriteStream(file));
    const zip = await yauzl.openPromise(file, { validateEntrySizes: true, autoClose: false }).catch((error: Error) => {
      throw notXlsx(error.message);
    });
    try {
      const parts = await directoryOf(zip);
      const budget = { left: XLSX_LIMITS.inflatedBytes };
      const read = (name: string) => {
        const entry = parts.get(name);
        return entry ? inflated(zip, entry, budget) : null;
      };
      const shared = read('xl/sharedStrings.xml');
      const strings = shared ? await sharedStrings(shared) : [];
      const sheet = read(await firstSheetPath(read));
      if (!sheet) throw notXlsx('no worksheet');
      yield* sheetRows(sheet, strings);
    } finally {
      zip.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The parts by name, refused before any is inflated when they declare too much, or more than a spreadsheet compresses. */
async function directoryOf(zip: ZipFile): Promise<Map<string, Entry>> {
  if (zip.entryCount > XLSX_LIMITS.entries) throw tooLarge();
  const parts = new Map<string, Entry>();
  let declared = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      declared += entry.uncompressedSize;
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (declared > XLSX_LIMITS.inflatedBytes || (entry.uncompressedSize > 1024 * 1024 && ratio > XLSX_LIMITS.ratio)) throw tooLarge();
      parts.set(entry.fileName, entry);
    }
  } catch (error) {
    throw error instanceof DomainError ? error : notXlsx((error as Error).message);
  }
  const strings = parts.get('xl/sharedStrings.xml');
  if (strings && strings.uncompressedSize > XLSX_LIMITS.sharedStringBytes) throw tooLarge();
  return parts;
}

/** A part's text as it inflates, each byte counted: past its declared size, or the budget of the whole, it stops. */
async function* inflated(zip: ZipFile, entry: Entry, budget: { left: number }): AsyncGenerator<string> {
  const stream = await zip.openReadStreamPromise(entry).catch((error: Error) => {
    throw notXlsx(error.message);
  });
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      budget.left -= chunk.length;
      if (bytes > entry.uncompressedSize || budget.left < 0) throw tooLarge();
      yield decoder.decode(chunk, { stream: true });
    }
  } catch (error) {
    // yauzl's own check of the declared size, or a part that does not inflate.
    if (error instanceof DomainError) throw error;
    throw /too many bytes/.test((error as Error).message) ? tooLarge() : notXlsx((error as Error).message);
  } finally {
    stream.destroy();
  }
  yield decoder.decode();
}

/** Excel's own bound on a cell's text; a spreadsheet has no longer run of text between two tags. */
const MAX_TEXT = 32_767;

interface XmlHandlers<T> {
  opentag?: (tag: SaxesTagPlain, out: T[]) => void;
  closetag?: (tag: SaxesTagPlain, out: T[]) => void;
  text?: (text: string) => void;
}

/**
 * What the handlers push as an XML text streams through saxes (no DTD, no entities of its own). A run of text longer
 * than any cell holds is refused before it is held (saxes keeps a text whole until the next tag).
 */
async function* xmlEvents<T>(text: AsyncIterable<string>, handlers: XmlHandlers<T>): AsyncGenerator<T> {
  const parser = new SaxesParser();
  const out: T[] = [];
  let lastTag = 0;
  parser.on('opentag', (tag: SaxesTagPlain) => {
    lastTag = parser.position;
    handlers.opentag?.(tag, out);
  });
  parser.on('closetag', (tag: SaxesTagPlain) => {
    lastTag = parser.position;
    handlers.closetag?.(tag, out);
  });
  parser.on('text', (t) => handlers.text?.(t));
  try {
    for await (const chunk of text) {
      parser.write(chunk);
      if (parser.position - lastTag > MAX_TEXT * 8) throw notXlsx('a text longer than any cell');
      yield* out.splice(0);
    }
    parser.close();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw notXlsx((error as Error).message);
  }
  yield* out.splice(0);
}

/** The texts of `xl/sharedStrings.xml` by index: a string's runs joined, its phonetic guide (rPh) left out. */
async function sharedStrings(text: AsyncIterable<string>): Promise<string[]> {
  const strings: string[] = [];
  let current = '';
  let inText = false;
  let phonetic = 0;
  const events = xmlEvents<string>(text, {
    opentag: (tag) => {
      if (tag.name === 'si') current = '';
      else if (tag.name === 'rPh') phonetic += 1;
      else if (tag.name === 't') inText = phonetic === 0;
    },
    closetag: (tag, out) => {
      if (tag.name === 'si') out.push(current);
      else if (tag.name === 'rPh') phonetic -= 1;
      else if (tag.name === 't') inText = false;
    },
    text: (t) => {
      if (inText && current.length < MAX_TEXT) current += t;
    },
  });
  for await (const string of events) strings.push(string);
  return strings;
}

/** The first sheet's part: the workbook names it, its relationships say where it is. */
async function firstSheetPath(read: (name: string) => AsyncIterable<string> | null): Promise<string> {
  const fallback = 'xl/worksheets/sheet1.xml';
  const attributesOf = async (name: string, tagName: string) => {
    const part = read(name);
    const found: Record<string, string>[] = [];
    if (!part) return found;
    const events = xmlEvents<Record<string, string>>(part, {
      opentag: (tag, out) => {
        if (tag.name === tagName) out.push(tag.attributes);
      },
    });
    for await (const attributes of events) found.push(attributes);
    return found;
  };
  const [sheet] = await attributesOf('xl/workbook.xml', 'sheet');
  const id = sheet?.['r:id'];
  if (!id) return fallback;
  const target = (await attributesOf('xl/_rels/workbook.xml.rels', 'Relationship')).find((r) => r.Id === id)?.Target;
  if (!target) return fallback;
  return target.startsWith('/') ? target.slice(1) : path.posix.join('xl', target);
}

/** `C` of `C12`: the column's index from 0. */
const columnOf = (ref: string | undefined): number | null => {
  const letters = /^([A-Z]+)\d*$/.exec(ref ?? '')?.[1];
  if (!letters) return null;
  return [...letters].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0) - 1;
};

/** The sheet's rows: a cell's shared string, inline string, boolean, or its value (numbers and formula results) as written. */
function sheetRows(text: AsyncIterable<string>, strings: string[]): AsyncGenerator<string[]> {
  let row: string[] = [];
  let cell: { column: number; type: string } | null = null;
  let value = '';
  let reading = false;
  return xmlEvents<string[]>(text, {
    opentag: (tag) => {
      if (tag.name === 'row') row = [];
      else if (tag.name === 'c') {
        cell = { column: columnOf(tag.attributes.r) ?? row.length, type: tag.attributes.t ?? 'n' };
        value = '';
      } else if (cell && (tag.name === 'v' || tag.name === 't')) reading = true;
    },
    text: (t) => {
      if (reading && value.length < MAX_TEXT) value += t;
    },
    closetag: (tag, out) => {
      if (tag.name === 'v' || tag.name === 't') reading = false;
      else if (tag.name === 'c' && cell) {
        const text = cell.type === 's' ? (strings[Number(value)] ?? '') : cell.type === 'b' ? (value === '1' ? 'TRUE' : 'FALSE') : value;
        // A sheet may name any column: no row grows past the sheet's widest (XFD, 16,384 columns).
        if (cell.column < 16_384) {
          while (row.length < cell.column) row.push('');
          row[cell.column] = text;
        }
        cell = null;
      } else if (tag.name === 'row') out.push(row);
    },
  });
}
