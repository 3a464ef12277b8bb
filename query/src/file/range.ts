import { DomainError } from '@iot/contracts';
import { rawAnswer, type RawAnswer } from '@iot/contracts/http/route.ts';
import type { FileStore } from '@iot/contracts/ports/files.ts';

/** A byte range of a file to answer: inclusive, within the file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads an HTTP Range header (RFC 9110 §14.1) against a file of `size` bytes: null to send the whole file (no
 * header, or one this server does not serve as a range: another unit, several ranges), `unsatisfiable` for a
 * range that starts past the end.
 */
export function byteRangeOf(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const from = match[1] ?? '';
  const to = match[2] ?? '';
  if (from === '' && to === '') return null;
  if (from === '') {
    // A suffix: the last N bytes.
    const length = Number(to);
    if (length === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(from);
  if (start >= size) return 'unsatisfiable';
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (end < start) return null;
  return { start, end };
}

/** A file name as a Content-Disposition carries it: ASCII fallback, and the UTF-8 name (RFC 6266). */
const disposition = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/**
 * A stored file's bytes as an HTTP answer: the whole (200), or the range the Range header asks (206 with
 * Content-Range), 416 past the end; the ETag is its SHA-256, so a resumed download can tell it is the same file.
 */
export async function fileAnswer(
  files: FileStore | undefined,
  file: { name: string; size: number; sha256: string; storageKey: string },
  rangeHeader: string | undefined,
): Promise<RawAnswer> {
  if (!files) throw new DomainError('NOT_FOUND');
  const range = byteRangeOf(rangeHeader, file.size);
  if (range === 'unsatisfiable') throw new DomainError('RANGE_NOT_SATISFIABLE', { size: file.size });
  const body = await files.read(file.storageKey, range ?? undefined);
  if (!body) throw new DomainError('NOT_FOUND');
  const headers: Record<string, string> = {
    'accept-ranges': 'bytes',
    'content-disposition': disposition(file.name),
    etag: `"${file.sha256}"`,
    'content-length': String(range ? range.end - range.start + 1 : file.size),
  };
  if (!range) return rawAnswer('application/octet-stream', body, undefined, headers);
  headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`;
  return { ...rawAnswer('application/octet-stream', body, undefined, headers), status: 206 };
}
