import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import {
  deviceCreateBody,
  DomainError,
  IMPORT_MAX_BYTES,
  unstorable,
  importColumns,
  importRequiredColumns,
  type ImportFault,
  type ImportProgress,
  type NodeType,
} from '@iot/contracts';
import { importFaultOfIssue, storedImportFault, type ImportFaultReason } from '@iot/contracts/device/import-faults.ts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { FileUpload } from '@iot/contracts/http/route.ts';
import type { CommandContext } from '../handler.ts';
import { createDevices, type NewDevice } from './create.ts';
import { deviceStream } from './decide.ts';
import { newDeviceSecrets } from './secrets.ts';
import { xlsxSheetRows } from './xlsx.ts';

/** Tables of the import jobs and their refused rows: operational state of the write side, not domain facts. */
export const importSchema = `
create table device_import_jobs (
  job_id text primary key,
  tenant_id text not null,
  filename text not null,
  status text not null,
  total int not null default 0,
  created int not null default 0,
  unchanged int not null default 0,
  failed int not null default 0,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
create table device_import_faults (
  job_id text not null,
  row int not null,
  sn text,
  field text not null,
  reason text not null
);
create index device_import_faults_job on device_import_faults (job_id, row);`;

/** Issue 24: a job id is the tenant's own (another tenant may choose the same), and so are its faults. */
export const importJobsPerTenant = `
alter table device_import_jobs drop constraint device_import_jobs_pkey;
alter table device_import_jobs add primary key (tenant_id, job_id);
alter table device_import_faults add column tenant_id text;
update device_import_faults f set tenant_id = j.tenant_id from device_import_jobs j where j.job_id = f.job_id;
delete from device_import_faults where tenant_id is null;
alter table device_import_faults alter column tenant_id set not null;
drop index device_import_faults_job;
create index device_import_faults_job on device_import_faults (tenant_id, job_id, row);`;

/** Header names a file may use for each column: the template's own, and the Chinese ones operators type. */
const headerAliases: Record<string, (typeof importColumns)[number]> = {
  序列号: 'sn',
  设备序列号: 'sn',
  名称: 'name',
  设备名称: 'name',
  产品: 'product',
  产品编码: 'product',
  分组: 'group',
  网关: 'gateway',
  网关序列号: 'gateway',
  经度: 'lng',
  纬度: 'lat',
  地址: 'address',
  版本: 'version',
  标签: 'tags',
  备注: 'remark',
};
const normalizeHeader = (h: unknown) => {
  const text = String(h ?? '').trim();
  return headerAliases[text] ?? (importColumns as readonly string[]).find((c) => c.toLowerCase() === text.toLowerCase()) ?? text;
};

/**
 * Rows checked and saved together. What a batch holds lives across its PostgreSQL round trips while the next is
 * allocated, so it outlives V8's young generation, is promoted and dies in the old one. 250 instead of 1,000: the
 * 100k bench's peak RSS 1,043-1,056 -> 912-932 MB, heap used about 500 -> 450 MB; the rate may cost up to 15%
 * (915-966/s against 1,006-1,213/s, load 15-18: within this machine's noise, to be measured quiet).
 */
const BATCH = 250;
/** Progress is pushed every this many rows (and at the end), whatever the batch. */
const PROGRESS_EVERY = 1000;
const XLSX_TYPES = ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/octet-stream', 'application/zip'];
const CSV_TYPES = ['text/csv', 'text/plain', 'application/vnd.ms-excel', 'application/csv', 'application/octet-stream'];

type Row = Record<string, string>;
interface Numbered {
  row: number;
  values: Row;
}

/** The bytes of the upload, counted: past 50 MB the import stops with FILE_TOO_LARGE. */
async function* counted(upload: FileUpload, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of upload.stream) {
    bytes += chunk.byteLength;
    if (bytes > IMPORT_MAX_BYTES) throw new DomainError('FILE_TOO_LARGE');
    onBytes(bytes);
    yield chunk;
  }
}

/** A character no typed text holds: a control character (tab and line ends aside), or one a decoder made of bytes that are not UTF-8. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const BINARY = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFD]/;

/**
 * The row a file cannot be read from (spreadsheet numbering, the header is row 1): an unmatched quote, or binary
 * content. The refusal names the row, never the value (which would reach the log and the answer).
 */
const unreadable = (row: number) => new DomainError('FILE_ROW_INVALID', { row });

async function* csvRows(source: AsyncIterable<Uint8Array>): AsyncGenerator<Row> {
  /** The first row csv-parse could not read: its CsvError tells the records read before it, and whether it was in the header. */
  let faultRow: number | null = null;
  const parser = Readable.from(source).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => header.map(normalizeHeader),
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      // Skipped, not thrown: a thrown error would drop the rows read before it (the CsvError's message quotes the value).
      skip_records_with_error: true,
      on_skip: (error) => {
        const info = error as { records?: number; header?: boolean } | undefined;
        faultRow ??= info?.header === true ? 1 : (info?.records ?? 0) + 2;
      },
    }),
  );
  let row = 1;
  for await (const record of parser) {
    row += 1;
    if (faultRow !== null && row >= faultRow) break;
    if (Object.values(record as Row).some((v) => BINARY.test(v) || unstorable(v))) throw unreadable(row);
    yield record as Row;
  }
  if (faultRow !== null) throw unreadable(faultRow);
}

/** The first sheet's rows by the header row's columns, blank rows skipped; the workbook is bounded (see xlsx.ts). */
async function* xlsxRows(source: AsyncIterable<Uint8Array>): AsyncGenerator<Row> {
  let header: string[] | null = null;
  for await (const cells of xlsxSheetRows(source)) {
    const values = cells.map((v) => v.trim());
    if (!header) {
      header = values.map(normalizeHeader);
      continue;
    }
    if (values.every((v) => v === '')) continue;
    yield Object.fromEntries(header.map((h, i) => [h, values[i] ?? '']));
  }
}

/** The first row's columns, then the data rows numbered as a spreadsheet shows them (the header is row 1). */
async function* numbered(rows: AsyncIterable<Row>, onHeader: (columns: string[]) => void): AsyncGenerator<Numbered> {
  let n = 1;
  for await (const values of rows) {
    if (n === 1) onHeader(Object.keys(values));
    n += 1;
    yield { row: n, values };
  }
}

interface ProductRef {
  id: string;
  type: NodeType;
  modelVersion: number;
}

/** What the rows name by text (product code or name, group name), resolved within the caller's tenant. */
async function namesOf(ctx: RequestContext) {
  const { tenantId } = callerOf(ctx);
  const productBy = new Map<string, ProductRef>();
  for (const p of await ctx.ports.lookups.productsForDevices(tenantId)) {
    const ref = { id: p.id, type: p.nodeType, modelVersion: p.modelVersion };
    productBy.set(p.name.toLowerCase(), ref);
    productBy.set(p.code.toLowerCase(), ref);
  }
  const groupBy = new Map<string, string>();
  for (const g of await ctx.ports.lookups.groupNamesOfTenant(tenantId)) {
    groupBy.set(g.name.toLowerCase(), g.id);
    groupBy.set(g.id, g.id);
  }
  return { productBy, groupBy };
}

const number = (text: string | undefined) => (text === undefined || text === '' ? null : Number(text));
const optional = (text: string | undefined) => (text === undefined || text === '' ? null : text);

export interface ImportOutcome {
  jobId: string;
  total: number;
  created: number;
  unchanged: number;
  failed: number;
}

/**
 * Imports devices from a CSV or XLSX file as it streams in (issue 10 "Bulk import"): rows are validated and
 * appended a thousand at a time, each a `DeviceCreated` of its own stream; SN is the key (a claim), so a
 * row whose SN this tenant already has is left unchanged and a re-run creates nothing twice. A refused row
 * is reported (row, field, reason) and never half-imported.
 */
export async function importDevices(
  ctx: RequestContext,
  upload: FileUpload,
  query: { jobId: string; filename: string },
): Promise<ImportOutcome> {
  const caller = callerOf(ctx);
  const { tenantId } = caller;
  const { jobId, filename } = query;
  const extension = filename.toLowerCase().split('.').at(-1);
  const type = upload.contentType.split(';')[0]!.trim().toLowerCase();
  const kind = extension === 'csv' && CSV_TYPES.includes(type) ? 'csv' : extension === 'xlsx' && XLSX_TYPES.includes(type) ? 'xlsx' : null;
  if (!kind) throw new DomainError('FILE_TYPE');
  if (upload.length !== null && upload.length > IMPORT_MAX_BYTES) throw new DomainError('FILE_TOO_LARGE');
  if (upload.length === 0) throw new DomainError('FILE_EMPTY');

  const started = await ctx.ports.db.query(
    `insert into device_import_jobs (job_id, tenant_id, filename, status) values ($1, $2, $3, 'running') on conflict (tenant_id, job_id) do nothing`,
    [jobId, tenantId, filename],
  );
  if (started.rowCount === 0) throw new DomainError('JOB_RUNNING');

  const progress: ImportProgress = { jobId, rows: 0, created: 0, failed: 0, bytes: 0, totalBytes: upload.length, done: false };
  const publish = () => ctx.ports.live.publish('device.import', { tenantId }, progress);
  let unchanged = 0;
  const names = await namesOf(ctx);
  const seen = new Map<string, number>();
  /** Gateways by SN: the tenant's, and those this file creates (a sub-device row may follow its gateway's). */
  const gateways = new Map<string, { id: string; isGateway: boolean }>();
  const context: CommandContext = {
    tenantId,
    actor: { kind: caller.kind, id: caller.id },
    correlationId: jobId,
    ip: ctx.ip,
    onAppended: ctx.wrote,
  };

  const faults: ImportFault[] = [];
  const flushFaults = async () => {
    // Taken at once: the batch being saved meanwhile may add its own.
    const rows = faults.splice(0);
    if (rows.length === 0) return;
    await ctx.ports.db.query(
      `insert into device_import_faults (tenant_id, job_id, row, sn, field, reason)
       select $1, $2, r.row, r.sn, r.field, r.reason from jsonb_to_recordset($3::jsonb) as r(row int, sn text, field text, reason text)`,
      [tenantId, jobId, JSON.stringify(rows)],
    );
  };

  /** The previous batch's devices being saved while the next batch is read and checked. */
  let saving: Promise<void> = Promise.resolve();

  /** Checks a batch's rows, then hands its valid devices over to be saved once the batch before them is. */
  async function importBatch(batch: Numbered[]) {
    const unknownGateways = () => [...new Set(batch.map((b) => b.values.gateway).filter((g): g is string => !!g && !gateways.has(g)))];
    let gatewaySns = unknownGateways();
    // A gateway of the batch being saved is known once it is saved.
    if (gatewaySns.length > 0) {
      await saving;
      gatewaySns = unknownGateways();
    }
    for (const g of await ctx.ports.lookups.devicesBySn(tenantId, gatewaySns))
      gateways.set(g.sn, { id: g.id, isGateway: g.nodeType === 'gateway' });
    const valid: { row: number; device: NewDevice }[] = [];
    const secrets = newDeviceSecrets(batch.length);
    for (const { row, values } of batch) {
      const sn = values.sn ?? '';
      const fault = (field: string, reason: ImportFaultReason) => {
        faults.push({ row, sn: sn || null, field, reason: storedImportFault(reason) });
        progress.failed += 1;
      };
      const product = names.productBy.get((values.product ?? '').toLowerCase());
      if (!product) {
        fault('product', values.product ? { code: 'productUnknown', value: values.product } : { code: 'required' });
        continue;
      }
      const groupId = values.group ? names.groupBy.get(values.group.toLowerCase()) : null;
      if (values.group && !groupId) {
        fault('group', { code: 'groupUnknown', value: values.group });
        continue;
      }
      const gateway = values.gateway ? gateways.get(values.gateway) : null;
      if (values.gateway && !gateway?.isGateway) {
        fault('gateway', { code: gateway ? 'notGateway' : 'gatewayUnknown', value: values.gateway });
        continue;
      }
      const parsed = deviceCreateBody.safeParse({
        sn,
        name: values.name ?? '',
        productId: product.id,
        groupId: groupId ?? null,
        gatewayId: gateway?.id ?? null,
        location: { lng: number(values.lng), lat: number(values.lat), address: optional(values.address) },
        version: optional(values.version),
        tags: values.tags
          ? values.tags
              .split(/[;|]/)
              .map((t) => t.trim())
              .filter(Boolean)
          : [],
        remark: optional(values.remark),
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.filter((p) => p !== 'location').join('.') || 'row';
        fault(field, importFaultOfIssue(issue, values[field]));
        continue;
      }
      const earlier = seen.get(parsed.data.sn);
      if (earlier !== undefined) {
        fault('sn', { code: 'repeats', row: earlier });
        continue;
      }
      seen.set(parsed.data.sn, row);
      const d = parsed.data;
      valid.push({
        row,
        device: {
          deviceId: randomUUID(),
          sn: d.sn,
          name: d.name,
          productId: d.productId,
          modelVersion: product.modelVersion,
          nodeType: product.type,
          groupId: d.groupId,
          gatewayId: d.gatewayId ?? null,
          location: d.location,
          version: d.version,
          tags: d.tags,
          remark: d.remark,
          secretHash: secrets[valid.length]!.hash,
        },
      });
    }
    if (valid.length === 0) return;
    // The batch before saved (a failure stops the import here), then this one is saved while the next is read.
    await saving;
    saving = saveBatch(valid);
    // Met when awaited (by the next batch or the end of the file), not as an unhandled rejection meanwhile.
    saving.catch(() => {});
  }

  async function saveBatch(valid: { row: number; device: NewDevice }[]) {
    // A key already held is this tenant's device (unchanged) or another's (refused).
    const outcomes = await createDevices(
      ctx.ports,
      context,
      valid.map((v) => v.device),
    );
    const holders = outcomes.flatMap((o) => (o.outcome === 'held' && o.holder ? [o.holder] : []));
    const ours = new Set(await ctx.ports.lookups.devicesOfTenant(tenantId, holders));
    for (const [i, o] of outcomes.entries()) {
      const { row } = valid[i]!;
      const { sn } = o.device;
      if (o.outcome === 'created') {
        progress.created += 1;
        if (o.device.nodeType === 'gateway') gateways.set(sn, { id: o.device.deviceId, isGateway: true });
        continue;
      }
      // A device of ours the read model has not shown yet still has its stream.
      const mine =
        o.outcome === 'held' &&
        o.holder !== null &&
        (ours.has(o.holder) || (await ctx.ports.store.readStream(deviceStream(tenantId, o.holder), { limit: 1 })).length > 0);
      if (mine) unchanged += 1;
      else {
        faults.push({ row, sn, field: 'sn', reason: storedImportFault({ code: o.outcome === 'held' ? 'snTaken' : 'notSaved' }) });
        progress.failed += 1;
      }
    }
  }

  try {
    const source = counted(upload, (bytes) => {
      progress.bytes = bytes;
    });
    let columns: string[] | null = null;
    const rows = numbered(kind === 'csv' ? csvRows(source) : xlsxRows(source), (c) => {
      columns = c;
    });
    let batch: Numbered[] = [];
    try {
      for await (const item of rows) {
        if (columns) {
          const missing = importRequiredColumns.filter((c) => !columns!.includes(c));
          if (missing.length > 0) throw new DomainError('FILE_COLUMNS', { missing });
          columns = null;
        }
        batch.push(item);
        progress.rows += 1;
        if (batch.length >= BATCH) {
          await importBatch(batch);
          await flushFaults();
          if (progress.rows % PROGRESS_EVERY === 0) publish();
          batch = [];
        }
      }
    } catch (error) {
      // The rows before an unreadable one are imported (as the answer says); it and the rest are not.
      if (!(error instanceof DomainError && error.code === 'FILE_ROW_INVALID')) throw error;
      await importBatch(batch);
      await saving;
      await flushFaults();
      throw new DomainError('FILE_ROW_INVALID', { ...(error.details as object), created: progress.created });
    }
    if (progress.rows === 0) throw new DomainError('FILE_EMPTY');
    await importBatch(batch);
    await saving;
    await flushFaults();
    progress.done = true;
    publish();
    await ctx.ports.db.query(
      `update device_import_jobs set status = 'done', total = $3, created = $4, unchanged = $5, failed = $6, finished_at = now()
       where tenant_id = $1 and job_id = $2`,
      [tenantId, jobId, progress.rows, progress.created, unchanged, progress.failed],
    );
    return { jobId, total: progress.rows, created: progress.created, unchanged, failed: progress.failed };
  } catch (error) {
    // Nothing is left being saved when the job is marked failed.
    await saving.catch(() => {});
    await ctx.ports.db.query(
      `update device_import_jobs set status = 'failed', created = $3, finished_at = now() where tenant_id = $1 and job_id = $2`,
      [tenantId, jobId, progress.created],
    );
    // A file that is not what its name says (a broken XLSX) is the caller's mistake.
    if (error instanceof DomainError) throw error;
    if (kind === 'xlsx' && progress.created === 0)
      throw new DomainError('FILE_TYPE', { reason: String((error as Error).message).slice(0, 200) });
    throw error;
  }
}
