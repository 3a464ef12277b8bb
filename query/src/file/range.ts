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
