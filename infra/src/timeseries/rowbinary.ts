import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { TelemetryQuality, TelemetryRow } from './port.ts';

/**
 * Telemetry rows as ClickHouse's RowBinary, for chDB: its client insert takes only text formats, but
 * `INSERT … SELECT FROM file(path, RowBinary, structure)` reads a binary file, and skips the JSON text that
 * costs most of an insert (measured: 155k → 180k dp/s for a bare pipeline at 3 dp/message, ARCHITECTURE).
 * The columns, in file order; `received_at` takes its default.
 */
export const ROW_BINARY_COLUMNS =
  "tenant_id String, device_id String, product_id String, variable String, ts DateTime64(3, 'UTC'), " +
  "value Nullable(Float64), text Nullable(String), quality Enum8('good' = 0, 'uncertain' = 1, 'bad' = 2), " +
  'raw Nullable(String), retention_days UInt16';
export const ROW_BINARY_COLUMN_NAMES = ROW_BINARY_COLUMNS.split(/, (?=[a-z_]+ )/)
  .map((column) => column.split(' ')[0]!)
  .join(', ');

/** Where the files go: a RAM disk where there is one, so an insert never waits for a disk. */
export const rowBinaryDir = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/** The file of one insert: named by process, so that a process can tell the files of dead ones. */
export const rowBinaryFile = (table: string, seq: number): string => join(rowBinaryDir, `iot-telemetry-${process.pid}-${table}-${seq}.bin`);

/** Removes the files a killed process left behind (it died between writing one and its insert's end). */
export function removeOrphanedRowBinaryFiles(): void {
  for (const name of readdirSync(rowBinaryDir)) {
    const pid = /^iot-telemetry-(\d+)-.+\.bin$/.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || alive(Number(pid))) continue;
    rmSync(join(rowBinaryDir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const qualityCode: Record<TelemetryQuality, number> = { good: 0, uncertain: 1, bad: 2 };
/**
 * The longest retention a row can name (50 years): the TTL counts in DateTime, which ends in 2106, so a longer
 * one would wrap round to a date in the past. Longer ones keep the row for ever (0).
 */
export const MAX_RETENTION_DAYS = 18_250;

/** Identifiers repeat in every batch (tenant, device, product, variable): encoded once, kept a while. */
const encoded = new Map<string, Buffer>();
function stringOf(text: string): Buffer {
  let bytes = encoded.get(text);
  if (bytes) return bytes;
  if (encoded.size >= 200_000) encoded.clear();
  const body = Buffer.from(text, 'utf8');
  bytes = Buffer.concat([varUInt(body.length), body]);
  encoded.set(text, bytes);
  return bytes;
}

function varUInt(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

function writeVarUInt(buf: Buffer, offset: number, n: number): number {
  while (n >= 0x80) {
    buf[offset++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[offset++] = n;
  return offset;
}

/** Bytes of a Nullable(String) cell at most: flag, a varint of up to 5 bytes, the UTF-8 (at most 3 bytes per UTF-16 unit). */
const nullableStringMax = (text: string | null | undefined): number => (text == null ? 1 : 6 + text.length * 3);

function writeNullableString(buf: Buffer, offset: number, text: string | null | undefined): number {
  if (text == null) {
    buf[offset] = 1;
    return offset + 1;
  }
  buf[offset++] = 0;
  // Written after a 5-byte gap, then moved up behind its real length prefix.
  const written = buf.write(text, offset + 5, 'utf8');
  const start = writeVarUInt(buf, offset, written);
  if (start !== offset + 5) buf.copy(buf, start, offset + 5, offset + 5 + written);
  return start + written;
}

/**
 * Batches encoded already, by the array they were encoded from: the journal encodes a batch before its insert
 * (telemetry journal), and the insert then writes the same bytes instead of encoding the rows a second time.
 */
const encodedBatches = new WeakMap<readonly TelemetryRow[], Buffer>();

/** The rows (already checked: ids present, `ts` a valid Date) as one RowBinary buffer in ROW_BINARY_COLUMNS order. */
export function encodeRowBinary(rows: readonly TelemetryRow[]): Buffer {
  const done = encodedBatches.get(rows);
  if (done) return done;
  const ids: Buffer[] = new Array(rows.length * 4);
  let size = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const tenant = (ids[i * 4] = stringOf(row.tenantId));
    const device = (ids[i * 4 + 1] = stringOf(row.deviceId));
    const product = (ids[i * 4 + 2] = stringOf(row.productId ?? ''));
    const variable = (ids[i * 4 + 3] = stringOf(row.variable));
    // ts 8, value 1 + 8, quality 1, retention 2.
    size +=
      tenant.length + device.length + product.length + variable.length + 20 + nullableStringMax(row.text) + nullableStringMax(row.raw);
  }
  const buf = Buffer.allocUnsafe(size);
  let offset = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let k = 0; k < 4; k++) offset += ids[i * 4 + k]!.copy(buf, offset);
    // Int64 little-endian as two 32-bit halves: a BigInt per row costs more than the rest of the row.
    const ms = row.ts.getTime();
    const high = Math.floor(ms / 0x1_0000_0000);
    buf.writeUInt32LE(ms - high * 0x1_0000_0000, offset);
    buf.writeInt32LE(high, offset + 4);
    offset += 8;
    if (row.value == null) buf[offset++] = 1;
    else {
      buf[offset++] = 0;
      buf.writeDoubleLE(row.value, offset);
      offset += 8;
    }
    offset = writeNullableString(buf, offset, row.text);
    buf[offset++] = qualityCode[row.quality ?? 'good'];
    offset = writeNullableString(buf, offset, row.raw);
    buf.writeUInt16LE(retentionOf(row), offset);
    offset += 2;
  }
  const bytes = buf.subarray(0, offset);
  encodedBatches.set(rows, bytes);
  return bytes;
}

const qualityOf: TelemetryQuality[] = ['good', 'uncertain', 'bad'];

/** RowBinary of encodeRowBinary back to rows (the telemetry journal's batches, inserted again after a crash). */
export function decodeRowBinary(bytes: Buffer): TelemetryRow[] {
  const rows: TelemetryRow[] = [];
  let offset = 0;
  const varUIntAt = () => {
    let n = 0;
    let shift = 1;
    for (;;) {
      const b = bytes[offset++]!;
      n += (b & 0x7f) * shift;
      if (b < 0x80) return n;
      shift *= 128;
    }
  };
  const string = () => {
    const length = varUIntAt();
    const text = bytes.toString('utf8', offset, offset + length);
    offset += length;
    return text;
  };
  const nullableString = () => (bytes[offset++] === 1 ? null : string());
  while (offset < bytes.length) {
    const tenantId = string();
    const deviceId = string();
    const productId = string();
    const variable = string();
    const ts = new Date(bytes.readInt32LE(offset + 4) * 0x1_0000_0000 + bytes.readUInt32LE(offset));
    offset += 8;
    let value: number | null = null;
    if (bytes[offset++] === 0) {
      value = bytes.readDoubleLE(offset);
      offset += 8;
    }
    const text = nullableString();
    const quality = qualityOf[bytes[offset++]!] ?? 'good';
    const raw = nullableString();
    const retentionDays = bytes.readUInt16LE(offset);
    offset += 2;
    rows.push({
      tenantId,
      deviceId,
      productId,
      variable,
      ts,
      value,
      text,
      ...(retentionDays ? { retentionDays } : {}),
      ...(quality !== 'good' ? { quality } : {}),
      ...(raw !== null ? { raw } : {}),
    });
  }
  return rows;
}

/** Days the row is kept, 0 for ever: the template's retention period (see MAX_RETENTION_DAYS). */
export function retentionOf(row: TelemetryRow): number {
  const days = row.retentionDays;
  if (days == null || !Number.isFinite(days) || days <= 0 || days > MAX_RETENTION_DAYS) return 0;
  return Math.ceil(days);
}
