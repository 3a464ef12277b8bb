import { parse } from 'csv-parse/sync';
import { DomainError, IMPORT_MAX_BYTES, iccid as iccidSchema, type ptIccidFaultReasons } from '@iot/contracts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { FileUpload } from '@iot/contracts/http/route.ts';
import { runCommand } from '../request.ts';
import { xlsxSheetRows } from '../device/xlsx.ts';
import { ptIccidDecider, ptIccidStream } from './decide.ts';

type Reason = (typeof ptIccidFaultReasons)[number];
const reasons: Record<'zh' | 'en', Record<Reason, string>> = {
  zh: { required: '必填', invalid: 'ICCID 应为 18 到 22 位数字', repeats: '与第 {row} 行重复', exists: 'ICCID已存在' },
  en: { required: 'Required', invalid: 'An ICCID is 18 to 22 digits', repeats: 'Repeats row {row}', exists: 'The ICCID already exists' },
};
/** Header names a file may use: the template's own, and the Chinese ones operators type. */
const headerOf = (h: string) => {
  const text = h.trim().toLowerCase();
  if (['iccid', 'iccid号', 'sim卡号', '卡号'].includes(text)) return 'iccid';
  if (['remark', '备注'].includes(text)) return 'remark';
  return text;
};

async function bytesOf(upload: FileUpload): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of upload.stream) {
    size += chunk.byteLength;
    if (size > IMPORT_MAX_BYTES) throw new DomainError('FILE_TOO_LARGE');
    chunks.push(chunk);
  }
  if (size === 0) throw new DomainError('FILE_EMPTY');
  return Buffer.concat(chunks);
}

async function* oneChunk(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** The file's rows as cell texts, the header first: an XLSX workbook (a zip) or CSV text. */
async function rowsOf(bytes: Buffer): Promise<string[][]> {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const rows: string[][] = [];
    for await (const row of xlsxSheetRows(oneChunk(new Uint8Array(bytes)))) rows.push(row.map((v) => v.trim()));
    return rows;
  }
  const text = bytes.toString('utf8');
  // eslint-disable-next-line no-control-regex -- control characters mark a binary file, not text
  if (/[\u0000-\u0008\u000E-\u001F\uFFFD]/.test(text)) throw new DomainError('FILE_TYPE');
  try {
    return parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: true }) as string[][];
  } catch {
    throw new DomainError('FILE_TYPE');
  }
}

/**
 * Imports ICCIDs from a CSV or XLSX file (issue 21): each row an `PtIccidAdded` of its own stream, so that a
 * re-run adds nothing twice; every refused row is reported with its row number (the header is row 1) and why.
 */
export async function importIccids(ctx: RequestContext, upload: FileUpload, batchId: string | null) {
  const { tenantId } = callerOf(ctx);
  const [header, ...data] = (await rowsOf(await bytesOf(upload))).filter((r) => r.some((v) => v !== ''));
  if (!header) throw new DomainError('FILE_EMPTY');
  const columns = header.map(headerOf);
  const at = columns.indexOf('iccid');
  if (at < 0) throw new DomainError('FILE_COLUMNS', { missing: ['iccid'] });
  const remarkAt = columns.indexOf('remark');
  const lang = ctx.lang;
  const faults: { row: number; iccid: string | null; reason: Reason; message: string }[] = [];
  const fault = (row: number, iccid: string | null, reason: Reason, details: Record<string, number> = {}) =>
    faults.push({ row, iccid, reason, message: reasons[lang][reason].replace(/\{(\w+)\}/g, (_, k: string) => String(details[k] ?? '')) });
  const seen = new Map<string, number>();
  let created = 0;
  for (const [i, cells] of data.entries()) {
    const row = i + 2;
    const raw = cells[at]?.trim() ?? '';
    if (!raw) {
      fault(row, null, 'required');
      continue;
    }
    const parsed = iccidSchema.safeParse(raw);
    if (!parsed.success) {
      fault(row, raw.slice(0, 32), 'invalid');
      continue;
    }
    const iccid = parsed.data;
    if (seen.has(iccid)) {
      fault(row, iccid, 'repeats', { row: seen.get(iccid)! });
      continue;
    }
    seen.set(iccid, row);
    const remark = (remarkAt >= 0 ? cells[remarkAt]?.trim().slice(0, 256) : '') || null;
    try {
      await runCommand(ctx, ptIccidDecider, ptIccidStream(tenantId, iccid), { type: 'Add', fields: { iccid, batchId, remark } });
      created++;
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'PT_ICCID_EXISTS') throw error;
      fault(row, iccid, 'exists');
    }
  }
  return { total: data.length, created, failed: faults.length, faults };
}
