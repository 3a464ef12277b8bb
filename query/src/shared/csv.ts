import { stringify } from 'csv-stringify/sync';
import { rawAnswer } from '@iot/contracts/http/route.ts';

/**
 * A cell a spreadsheet would run as a formula (it begins with = + - @, or a tab or carriage return that
 * some spreadsheets skip) gets a leading single quote, so that it reads as text (CWE-1236).
 */
export const csvCell = (value: unknown): unknown => (typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** Rows as a CSV download: formula-safe cells, UTF-8 with a byte order mark so that spreadsheets read Chinese names. */
export function csvAnswer(filename: string, columns: readonly string[], rows: Record<string, unknown>[]) {
  const safe = rows.map((row) =>
    Object.fromEntries(columns.map((c) => [c, csvCell(Array.isArray(row[c]) ? (row[c] as unknown[]).join(';') : row[c])])),
  );
  const csv = stringify(safe, { header: true, columns: columns as string[] });
  return rawAnswer('text/csv; charset=utf-8', `\uFEFF${csv}`, filename);
}
