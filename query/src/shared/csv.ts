import { stringify } from 'csv-stringify/sync';
import { formulaSafe } from '@iot/contracts';
import { rawAnswer } from '@iot/contracts/http/route.ts';

/** A cell as every export writes it: formula-safe (numbers left alone), a list joined by `;`. */
export const csvCell = (value: unknown): unknown => formulaSafe(Array.isArray(value) ? value.join(';') : value);

const BOM = '\uFEFF';
/** Cells to CSV lines: RFC 4180 quoting (a comma, quote or line break in a cell), `\n` between lines. */
const lines = (rows: unknown[][]) => stringify(rows.map((row) => row.map(csvCell)));

/** Rows as a CSV download: formula-safe cells, UTF-8 with a byte order mark so that spreadsheets read Chinese names. */
export function csvAnswer(filename: string, columns: readonly string[], rows: Record<string, unknown>[], headers?: readonly string[]) {
  // `headers`: the columns as the reader reads them (their language), the keys otherwise.
  const head = columns.map((key, i) => headers?.[i] ?? key);
  return rawAnswer('text/csv; charset=utf-8', `${BOM}${lines([head, ...rows.map((row) => columns.map((c) => row[c]))])}`, filename);
}

/** The same file streamed as its rows are read (a million rows never sit in memory), about 64 KB at a time. */
export async function* csvStream(header: readonly string[], rows: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  yield `${BOM}${lines([[...header]])}`;
  let batch: unknown[][] = [];
  let size = 0;
  for await (const row of rows) {
    batch.push([...row]);
    size += row.reduce<number>((n, cell) => n + String(cell ?? '').length + 1, 0);
    if (size > 64 * 1024) {
      yield lines(batch);
      batch = [];
      size = 0;
    }
  }
  if (batch.length > 0) yield lines(batch);
}
