import { existsSync } from 'node:fs';
import { excelJs } from '../shared/xlsx.ts';
import type { Lang } from '@iot/contracts';
import { formulaSafe } from '@iot/contracts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import type { PtReportRecord } from '@iot/projections/pt/read.ts';

const labels = {
  zh: {
    pt: '生产测试报告',
    qc: '质检报告',
    alias: '测试配置',
    sn: '设备SN',
    deviceName: '设备名称',
    product: '产品',
    productCode: '产品编码',
    result: '结果',
    passed: '通过',
    failed: '不通过',
    tester: '测试人',
    testTime: '测试时间',
    remark: '备注',
    parameter: '参数',
    identifier: '标识符',
    value: '数值',
    range: '范围',
    unit: '单位',
    check: '判定',
    noValue: '无数据',
    outOfRange: '超出范围',
    ok: '合格',
  },
  en: {
    pt: 'Production test report',
    qc: 'Quality test report',
    alias: 'Test configuration',
    sn: 'Device SN',
    deviceName: 'Device name',
    product: 'Product',
    productCode: 'Product code',
    result: 'Result',
    passed: 'Passed',
    failed: 'Failed',
    tester: 'Tester',
    testTime: 'Test time',
    remark: 'Remark',
    parameter: 'Parameter',
    identifier: 'Identifier',
    value: 'Value',
    range: 'Range',
    unit: 'Unit',
    check: 'Check',
    noValue: 'No value',
    outOfRange: 'Out of range',
    ok: 'OK',
  },
} as const;

/** A CJK font the machine carries (Debian's fonts-noto-cjk), with the face inside its collection; null: none installed. */
const cjkFonts: Array<[path: string, face: string]> = [
  ['/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 'NotoSansCJKsc-Regular'],
  ['/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc', 'NotoSerifCJKsc-Regular'],
  ['/usr/share/fonts/truetype/wqy/wqy-microhei.ttc', 'WenQuanYiMicroHei'],
];
let cjkFont: [string, string] | null | undefined;
export function cjkFontOf(): [string, string] | null {
  cjkFont ??= cjkFonts.find(([path]) => existsSync(path)) ?? null;
  return cjkFont;
}

const rangeOf = (c: { min: number | null; max: number | null }) =>
  c.min == null && c.max == null ? '' : `${c.min ?? ''} ~ ${c.max ?? ''}`;
const fileName = (r: PtReportRecord, ext: string) => `${r.kind}-report-${r.sn.replace(/[^\w.-]+/g, '_')}.${ext}`;

/** The report's head as label and value pairs, in the reader's language. */
function headOf(r: PtReportRecord, lang: Lang): Array<[string, string]> {
  const t = labels[lang];
  return [
    [t.alias, r.alias],
    [t.sn, r.sn],
    [t.deviceName, r.deviceName],
    [t.product, r.productName],
    [t.productCode, r.productCode],
    [t.result, r.passed ? t.passed : t.failed],
    [t.tester, r.tester],
    [t.testTime, r.testTime.toISOString()],
    [t.remark, r.remark ?? ''],
  ];
}
const checkRows = (r: PtReportRecord, lang: Lang) =>
  r.checks.map((c) => [c.name, c.identifier, c.value ?? '', rangeOf(c), c.unit ?? '', labels[lang][c.fault ?? 'ok']]);

/** A report as an XLSX workbook: the head, then a line per parameter checked; cells are text, never formulas. */
export async function reportXlsx(r: PtReportRecord, lang: Lang) {
  const t = labels[lang];
  const book = new (await excelJs()).Workbook();
  const sheet = book.addWorksheet(t[r.kind]);
  sheet.addRow([t[r.kind]]).font = { bold: true, size: 14 };
  for (const [label, value] of headOf(r, lang)) sheet.addRow([label, formulaSafe(value)]);
  sheet.addRow([]);
  sheet.addRow([t.parameter, t.identifier, t.value, t.range, t.unit, t.check]).font = { bold: true };
  for (const row of checkRows(r, lang)) sheet.addRow(row.map((v) => formulaSafe(v)));
  sheet.columns.forEach((column) => (column.width = 22));
  const bytes = new Uint8Array(await book.xlsx.writeBuffer());
  return rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes, fileName(r, 'xlsx'));
}

/** Text a PDF can show without a CJK font: characters outside Latin-1 become `?`. */
const latin = (text: string) => text.replace(/[^\x20-\xFF]/g, '?');

/**
 * A report as a PDF (pdfkit): with the machine's CJK font when one is installed, so that Chinese labels and names
 * show; without one, in English with non-Latin characters replaced, rather than boxes.
 */
export async function reportPdf(r: PtReportRecord, lang: Lang) {
  const font = cjkFontOf();
  const use: Lang = font ? lang : 'en';
  const show = font ? (s: string) => s : latin;
  const t = labels[use];
  // Loaded on the first PDF: pdfkit and its fonts' code are not in the memory of a platform that never renders one.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', margin: 48, info: { Title: `${t[r.kind]} ${r.sn}` } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  if (font) {
    doc.registerFont('body', font[0], font[1]);
    doc.font('body');
  }
  doc.fontSize(18).text(show(t[r.kind]), { align: 'center' });
  doc.moveDown();
  doc.fontSize(11);
  for (const [label, value] of headOf(r, use)) doc.text(`${show(label)}: ${show(value)}`);
  doc.moveDown();
  const widths = [110, 90, 70, 90, 50, 80];
  const table = (cells: readonly unknown[]) => {
    const y = doc.y;
    let x = doc.page.margins.left;
    cells.forEach((cell, i) => {
      doc.text(show(String(cell)), x, y, { width: widths[i]! - 6, lineBreak: false, ellipsis: true });
      x += widths[i]!;
    });
    doc.x = doc.page.margins.left;
    doc.y = y + 18;
  };
  doc.fontSize(10);
  table([t.parameter, t.identifier, t.value, t.range, t.unit, t.check]);
  for (const row of checkRows(r, use)) table(row);
  doc.end();
  await done;
  return rawAnswer('application/pdf', new Uint8Array(Buffer.concat(chunks)), fileName(r, 'pdf'));
}
