import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { reportXlsx, type ReportHeading, type ReportSource } from './render.ts';

const heading: ReportHeading = {
  name: 'r',
  from: '2026-10-01T00:00:00.000Z',
  to: '2026-10-02T00:00:00.000Z',
  timeZone: 'Asia/Shanghai',
  cycle: '15m',
  fn: 'avg',
  lang: 'en',
};

/** A report of `n` rows read as a store would give them, counting what was read and whether the reading was ended. */
function source(n: number) {
  const seen = { rows: 0, ended: false };
  async function* rows() {
    try {
      for (let i = 0; i < n; i++) {
        seen.rows++;
        yield {
          time: new Date(Date.UTC(2026, 9, 1) + Math.floor(i / 100) * 900_000).toISOString(),
          deviceId: `d${i % 100}`,
          values: [i, null],
        };
      }
    } finally {
      seen.ended = true;
    }
  }
  const report: ReportSource = {
    columns: [
      { variable: 'v1', name: 'Voltage', unit: 'V' },
      { variable: 'v2', name: null, unit: null },
    ],
    devices: [{ id: 'd0', sn: 'SN-0', name: 'first' }],
    rows: rows(),
  };
  return { report, seen };
}

describe('report XLSX as a stream', () => {
  it('writes every row read, numbers as numbers', async () => {
    const { report, seen } = source(1_000);
    const chunks: Uint8Array[] = [];
    for await (const chunk of reportXlsx(report, heading)) chunks.push(chunk);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.concat(chunks) as never);
    const sheet = book.getWorksheet('report')!;
    expect(sheet.rowCount).toBe(1_001);
    expect(sheet.getRow(1).values).toEqual([undefined, 'Time', 'Device', 'Serial number', 'Voltage (V)', 'v2']);
    expect(sheet.getRow(2).values).toEqual([undefined, '2026-10-01 08:00', 'first', 'SN-0', 0]);
    expect(sheet.getRow(1_001).getCell(4).value).toBe(999);
    expect(seen).toEqual({ rows: 1_000, ended: true });
  });

  it('reads rows only as fast as the file is taken, and stops reading them when the reader goes', async () => {
    const { report, seen } = source(2_000_000);
    const file = reportXlsx(report, heading);
    // The reader takes the first chunk, then stalls: the writer must come to a stop for it, not read the report on.
    await file.next();
    let last = -1;
    await expect
      .poll(
        () => {
          const still = seen.rows === last;
          last = seen.rows;
          return still;
        },
        { interval: 250, timeout: 30_000 },
      )
      .toBe(true);
    expect(seen.rows).toBeLessThan(100_000);
    await file.return(undefined);
    await expect.poll(() => seen.ended).toBe(true);
    expect(seen.rows).toBe(last);
  });
});
