import { PNG_SIGNATURE } from '../identity/settings.ts';

/** The bytes a PNG must start with: the signature, then the IHDR chunk (length, type, 13 bytes of data, CRC). */
export const PNG_HEAD_BYTES = 33;

const IHDR = [0x49, 0x48, 0x44, 0x52];
const MAX_DIMENSION = 2 ** 31 - 1;

const uint32 = (bytes: ArrayLike<number>, at: number) =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;

/**
 * The dimensions of a PNG read from its first bytes (at least PNG_HEAD_BYTES), or null when they are not a
 * PNG's: the signature, then an IHDR chunk of 13 bytes with a non-zero width and height (PNG spec §11.2.2).
 */
export function pngDimensions(head: ArrayLike<number>): { width: number; height: number } | null {
  if (head.length < PNG_HEAD_BYTES) return null;
  if (!PNG_SIGNATURE.every((b, i) => head[i] === b)) return null;
  if (uint32(head, 8) !== 13 || !IHDR.every((b, i) => head[12 + i] === b)) return null;
  const width = uint32(head, 16);
  const height = uint32(head, 20);
  const valid = (n: number) => n >= 1 && n <= MAX_DIMENSION;
  return valid(width) && valid(height) ? { width, height } : null;
}
