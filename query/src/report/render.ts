import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { excelJs } from '../shared/xlsx.ts';
import { formulaSafe, type Lang, type ReportCycle } from '@iot/contracts';
import type { ReportResult } from '@iot/projections/report/compute.ts';
import { localTime } from '@iot/projections/report/mail.ts';
import { csvStream } from '../shared/csv.ts';

/** What a report file says of itself beside its rows. */
export interface ReportHeading {
  name: string;
  from: string;
  to: string;
  timeZone: string;
  cycle: ReportCycle;
  fn: string;
  lang: Lang;
}

const words: Record<Lang, { time: string; device: string; sn: string; range: string; cycle: string; fn: string; cut: string }> = {
  zh: {
    time: '时间',
    device: '设备',
    sn: '序列号',
    range: '时间范围',
    cycle: '周期',
    fn: '聚合',
    cut: '仅列出前 {n} 行，完整数据请导出 XLSX 或 CSV',
  },
  en: {
    time: 'Time',
    device: 'Device',
    sn: 'Serial number',
    range: 'Range',
    cycle: 'Cycle',
    fn: 'Aggregation',
    cut: 'Only the first {n} rows are listed: export XLSX or CSV for all',
  },
};

/** A report to write out: its rows in memory, or read as they are written (`streamReport`). */
export type ReportSource = Omit<ReportResult, 'rows'> & { rows: Iterable<ReportRow> | AsyncIterable<ReportRow> };
type ReportRow = ReportResult['rows'][number];

/** The file's header: time, device, serial number, then each variable by its name and unit. */
export function reportHeader(result: Pick<ReportResult, 'columns'>, lang: Lang): string[] {
  const w = words[lang];
  return [w.time, w.device, w.sn, ...result.columns.map((c) => `${c.name ?? c.variable}${c.unit ? ` (${c.unit})` : ''}`)];
}

/** One line per row: local time, device name and serial number, then the values (blank where a cycle has none). */
async function* reportLines(result: ReportSource, heading: ReportHeading): AsyncGenerator<(string | number | null)[]> {
  const devices = new Map(result.devices.map((d) => [d.id, d]));
  // Rows come a cycle at a time (every device of one cycle, then the next): the local time is formatted once per cycle.
  let time = '';
  let local = '';
  for await (const row of result.rows) {
    const d = devices.get(row.deviceId);
    if (row.time !== time) [time, local] = [row.time, localTime(row.time, heading.timeZone, heading.cycle)];
    yield [local, d?.name ?? row.deviceId, d?.sn ?? '', ...row.values];
  }
}

export const reportCsv = (result: ReportSource, heading: ReportHeading) =>
  csvStream(reportHeader(result, heading.lang), reportLines(result, heading));

/**
 * XLSX written as a stream (rows committed as they go, no shared strings), numbers as numbers. Rows are read only as
 * fast as the reader takes the file: the writer waits while the file's buffer is full (the zip stops taking rows then,
 * and would keep them all), and stops if the reader goes.
 */
export async function* reportXlsx(result: ReportSource, heading: ReportHeading): AsyncGenerator<Uint8Array> {
  const out = new PassThrough();
  const book = new (await excelJs()).stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet('report');
  const header = reportHeader(result, heading.lang);
  sheet.columns = header.map((h, i) => ({ header: h, key: `c${i}`, width: i === 0 ? 18 : 16 }));
  // Wakes the writer when the reader took a chunk.
  const reader: { pulled: (() => void) | null } = { pulled: null };
  const full = () => !out.destroyed && out.readableLength >= out.readableHighWaterMark;
  const writing = (async () => {
    let n = 0;
    for await (const line of reportLines(result, heading)) {
      if (out.destroyed) return;
      sheet.addRow(line.map((cell) => (typeof cell === 'string' ? formulaSafe(cell) : cell))).commit();
      if (++n % XLSX_ROWS_BETWEEN_WAITS !== 0) continue;
      // The zip compresses off the event loop: let it catch up, then wait for the reader while the file is full.
      await new Promise((resolve) => setImmediate(resolve));
      while (full()) await new Promise<void>((resolve) => (reader.pulled = resolve));
      if (out.destroyed) return;
    }
    if (out.destroyed) return;
    sheet.commit();
    await book.commit();
  })();
  // A writer that fails ends the file with its error; one the reader left (a destroyed file) has nothing to say.
  writing.catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  try {
    for await (const chunk of out) {
      yield chunk as Uint8Array;
      reader.pulled?.();
    }
    await writing;
  } finally {
    out.destroy();
    reader.pulled?.();
  }
}
/** Rows the XLSX writer commits between two looks at whether the reader keeps up. */
const XLSX_ROWS_BETWEEN_WAITS = 500;

/** Rows a PDF lists at most: a printable document, not the data set (XLSX and CSV hold every row). */
export const PDF_ROWS = 3_000;
/** A font with Chinese glyphs, where the machine has one (Debian's fonts-noto-cjk); else the PDF's built-in Helvetica. */
const CJK_FONTS = [
  { path: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', family: 'NotoSansCJKsc-Regular' },
  { path: '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc', family: 'NotoSansCJKsc-Regular' },
  { path: '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc', family: 'WenQuanYiMicroHei' },
];

/** A landscape A4 table: the heading, then the first `PDF_ROWS` rows, the header repeated on every page. */
export async function reportPdf(result: ReportSource, heading: ReportHeading): Promise<Uint8Array> {
  const lines: (string | number | null)[][] = [];
  for await (const cells of reportLines(result, heading)) {
    // One past the cut, to know whether to say the list is cut.
    lines.push(cells);
    if (lines.length > PDF_ROWS) break;
  }
  // Loaded on the first PDF: pdfkit and its fonts' code are not in the memory of a platform that never renders one.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: 36, info: { Title: heading.name } });
  const font = CJK_FONTS.find((f) => existsSync(f.path));
  if (font) doc.registerFont('body', font.path, font.family);
  doc.font(font ? 'body' : 'Helvetica');
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
  });
  const w = words[heading.lang];
  doc.fontSize(16).text(heading.name);
  doc
    .fontSize(9)
    .text(`${w.range}: ${heading.from} — ${heading.to} (${heading.timeZone})   ${w.cycle}: ${heading.cycle}   ${w.fn}: ${heading.fn}`);
  if (lines.length > PDF_ROWS) doc.text(w.cut.replace('{n}', String(PDF_ROWS)));
  doc.moveDown();
  const header = reportHeader(result, heading.lang);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const widths = header.map((_, i) => (i === 0 ? 90 : i === 1 ? 110 : i === 2 ? 90 : (width - 290) / Math.max(1, header.length - 3)));
  const lineHeight = 13;
  const line = (cells: readonly (string | number | null)[]) => {
    if (doc.y + lineHeight > doc.page.height - doc.page.margins.bottom) {
      doc.addPage();
      line(header);
    }
    const y = doc.y;
    let x = left;
    cells.forEach((cell, i) => {
      doc.text(cell === null ? '' : String(cell), x, y, { width: widths[i]! - 4, height: lineHeight, ellipsis: true, lineBreak: false });
      x += widths[i]!;
    });
    doc.x = left;
    doc.y = y + lineHeight;
  };
  doc.fontSize(8);
  line(header);
  for (const cells of lines.slice(0, PDF_ROWS)) line(cells.map((c) => (typeof c === 'number' ? Number(c.toFixed(4)) : c)));
  doc.end();
  return done;
}

/**
 * The file a scheduled report's mail carries: its table as XLSX, every row (the mail's text lists the first ones),
 * headed in Chinese (the platform's language: a contact has none of their own), named after the report and its period.
 */
export async function reportMailXlsx(
  report: { name: string; timeZone: string; cycle: ReportCycle; fn: string },
  period: { from: Date; to: Date },
  result: ReportResult,
): Promise<{ filename: string; contentType: string; content: Uint8Array }[]> {
  const day = period.from.toLocaleDateString('sv-SE', { timeZone: report.timeZone });
  const heading: ReportHeading = {
    ...report,
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    lang: 'zh',
  };
  const chunks: Uint8Array[] = [];
  for await (const chunk of reportXlsx(result, heading)) chunks.push(chunk);
  return [
    {
      filename: `${report.name.replace(/[\\/:*?"<>|\r\n]+/g, '_')}-${day}.xlsx`,
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      content: new Uint8Array(Buffer.concat(chunks)),
    },
  ];
}
