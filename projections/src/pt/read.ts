import type {
  Page,
  PageQuery,
  PtCheck,
  PtOperation,
  PtReportKind,
  PtStatus,
  ptBatchSortable,
  ptConfigSortable,
  ptIccidSortable,
  ptOperationSortable,
  ptReportSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

// ---------------------------------------------------------------- configurations (rm_pt_configs)

/** A test configuration as the pt projection keeps it (never its password: only whether one is set). */
export type PtConfigRecord = {
  id: string;
  alias: string;
  productId: string;
  productName: string;
  productCode: string;
  batchId: string | null;
  batchNo: string | null;
  qcPermission: boolean;
  username: string | null;
  hasPassword: boolean;
  iccidCheck: boolean;
  parameters: string[];
  upgradeFileId: string | null;
  qcTesterId: string | null;
  boundUserIds: string[];
  remark: string | null;
  createdBy: string;
  createdAt: Date;
};
const CONFIG = `c.id, c.alias, c.product_id as "productId", c.product_name as "productName", c.product_code as "productCode",
  c.batch_id as "batchId", (select b.batch_no from rm_pt_batches b where b.id = c.batch_id) as "batchNo",
  c.qc_permission as "qcPermission", c.username, c.has_password as "hasPassword", c.iccid_check as "iccidCheck", c.parameters,
  c.upgrade_file_id as "upgradeFileId", c.qc_tester_id as "qcTesterId", c.bound_user_ids as "boundUserIds", c.remark,
  c.created_by as "createdBy", c.created_at as "createdAt"`;
const configSortBy = { createTime: 'c.created_at', alias: 'lower(c.alias)' } satisfies Record<(typeof ptConfigSortable)[number], string>;

export async function ptConfigsPage(
  db: Sql,
  tenantId: string,
  filter: { alias?: string; productId?: string },
  page: PageQuery,
): Promise<Page<PtConfigRecord>> {
  const spec: ListSpec = {
    select: CONFIG,
    from: 'rm_pt_configs c',
    where: ['c.tenant_id = $1'],
    params: [tenantId],
    sortable: configSortBy,
    defaultSort: 'c.created_at',
  };
  if (filter.alias) spec.where.push(`c.alias ilike ${param(spec.params, `%${filter.alias}%`)}`);
  if (filter.productId) spec.where.push(`c.product_id = ${param(spec.params, filter.productId)}`);
  return pageRows<PtConfigRecord>(db, page, spec);
}

export async function ptConfigById(db: Sql, tenantId: string, id: string): Promise<PtConfigRecord | null> {
  return (
    (await db.query<PtConfigRecord>(`select ${CONFIG} from rm_pt_configs c where c.id = $1 and c.tenant_id = $2`, [id, tenantId]))
      .rows[0] ?? null
  );
}

// ---------------------------------------------------------------- batches (rm_pt_batches)

export type PtBatchRecord = {
  id: string;
  batchNo: string;
  productId: string | null;
  quantity: number | null;
  remark: string | null;
  createdAt: Date;
};
const batchSortBy = { createTime: 'created_at', batchNo: 'lower(batch_no)' } satisfies Record<(typeof ptBatchSortable)[number], string>;

export async function ptBatchesPage(
  db: Sql,
  tenantId: string,
  filter: { batchNo?: string },
  page: PageQuery,
): Promise<Page<PtBatchRecord>> {
  const spec: ListSpec = {
    select: `id, batch_no as "batchNo", product_id as "productId", quantity, remark, created_at as "createdAt"`,
    from: 'rm_pt_batches',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: batchSortBy,
    defaultSort: 'created_at',
  };
  if (filter.batchNo) spec.where.push(`batch_no ilike ${param(spec.params, `%${filter.batchNo}%`)}`);
  return pageRows<PtBatchRecord>(db, page, spec);
}

// ---------------------------------------------------------------- ICCIDs (rm_pt_iccids)

export type PtIccidRecord = {
  iccid: string;
  batchId: string | null;
  batchNo: string | null;
  deviceId: string | null;
  deviceSn: string | null;
  remark: string | null;
  createdAt: Date;
};
const iccidSortBy = { createTime: 'i.created_at', iccid: 'i.iccid' } satisfies Record<(typeof ptIccidSortable)[number], string>;

export async function ptIccidsPage(
  db: Sql,
  tenantId: string,
  filter: { iccid?: string; batchId?: string; paired?: boolean },
  page: PageQuery,
): Promise<Page<PtIccidRecord>> {
  const spec: ListSpec = {
    select: `i.iccid, i.batch_id as "batchId", (select b.batch_no from rm_pt_batches b where b.id = i.batch_id) as "batchNo",
      i.device_id as "deviceId", i.device_sn as "deviceSn", i.remark, i.created_at as "createdAt"`,
    from: 'rm_pt_iccids i',
    where: ['i.tenant_id = $1'],
    params: [tenantId],
    sortable: iccidSortBy,
    defaultSort: 'i.created_at',
  };
  if (filter.iccid) spec.where.push(`i.iccid ilike ${param(spec.params, `%${filter.iccid}%`)}`);
  if (filter.batchId) spec.where.push(`i.batch_id = ${param(spec.params, filter.batchId)}`);
  if (filter.paired !== undefined) spec.where.push(filter.paired ? 'i.device_id is not null' : 'i.device_id is null');
  return pageRows<PtIccidRecord>(db, page, spec);
}

// ---------------------------------------------------------------- devices under test (rm_pt_devices)

export type PtDeviceRecord = {
  deviceId: string;
  configId: string;
  status: PtStatus;
  passed: boolean | null;
  productSn: string | null;
  iccid: string | null;
  reportId: string | null;
  qcReportId: string | null;
  updatedAt: Date;
};

/** The test status of these devices of the tenant, by device (a device never tested is absent). */
export async function ptDeviceStates(db: Sql, tenantId: string, deviceIds: string[]): Promise<Map<string, PtDeviceRecord>> {
  const rows = await db.query<PtDeviceRecord>(
    `select device_id as "deviceId", config_id as "configId", status, passed, product_sn as "productSn", iccid, report_id as "reportId",
       qc_report_id as "qcReportId", updated_at as "updatedAt"
     from rm_pt_devices where tenant_id = $1 and device_id = any($2)`,
    [tenantId, deviceIds],
  );
  return new Map(rows.rows.map((r) => [r.deviceId, r]));
}

/** The devices of the tenant in a test status (a status filter of the production and quality lists). */
export async function ptDeviceIdsInStatus(db: Sql, tenantId: string, status: PtStatus): Promise<string[]> {
  const rows = await db.query<{ id: string }>('select device_id as id from rm_pt_devices where tenant_id = $1 and status = $2', [
    tenantId,
    status,
  ]);
  return rows.rows.map((r) => r.id);
}

// ---------------------------------------------------------------- reports (rm_pt_reports)

export type PtReportRecord = {
  id: string;
  kind: PtReportKind;
  configId: string;
  alias: string;
  deviceId: string;
  sn: string;
  deviceName: string;
  productName: string;
  productCode: string;
  passed: boolean;
  checks: PtCheck[];
  remark: string | null;
  tester: string;
  testTime: Date;
  createdAt: Date;
};
const REPORT = `id, kind, config_id as "configId", alias, device_id as "deviceId", sn, device_name as "deviceName",
  product_name as "productName", product_code as "productCode", passed, checks, remark, tester, test_time as "testTime",
  created_at as "createdAt"`;
const reportSortBy = { createTime: 'created_at', sn: 'sn' } satisfies Record<(typeof ptReportSortable)[number], string>;

export async function ptReportsPage(
  db: Sql,
  tenantId: string,
  kind: PtReportKind,
  filter: { configId?: string; sn?: string; passed?: boolean },
  page: PageQuery,
): Promise<Page<PtReportRecord>> {
  const spec: ListSpec = {
    select: REPORT,
    from: 'rm_pt_reports',
    where: ['tenant_id = $1', 'kind = $2'],
    params: [tenantId, kind],
    sortable: reportSortBy,
    defaultSort: 'created_at',
  };
  if (filter.configId) spec.where.push(`config_id = ${param(spec.params, filter.configId)}`);
  if (filter.sn) spec.where.push(`sn ilike ${param(spec.params, `%${filter.sn}%`)}`);
  if (filter.passed !== undefined) spec.where.push(`passed = ${param(spec.params, filter.passed)}`);
  return pageRows<PtReportRecord>(db, page, spec);
}

export async function ptReportById(db: Sql, tenantId: string, kind: PtReportKind, id: string): Promise<PtReportRecord | null> {
  const rows = await db.query<PtReportRecord>(`select ${REPORT} from rm_pt_reports where tenant_id = $1 and kind = $2 and id = $3`, [
    tenantId,
    kind,
    id,
  ]);
  return rows.rows[0] ?? null;
}

// ---------------------------------------------------------------- operation records (rm_pt_operations)

export type PtOperationRecord = {
  id: string;
  deviceId: string;
  sn: string;
  productName: string;
  productCode: string;
  operation: PtOperation;
  detail: string | null;
  user: string;
  createdAt: Date;
};
export interface PtOperationFilter {
  sn?: string;
  productCode?: string;
  operation?: PtOperation;
  user?: string;
}
const operationSortBy = { createTime: 'created_at', sn: 'sn' } satisfies Record<(typeof ptOperationSortable)[number], string>;

export async function ptOperationsPage(
  db: Sql,
  tenantId: string,
  filter: PtOperationFilter,
  page: PageQuery,
): Promise<Page<PtOperationRecord>> {
  const spec: ListSpec = {
    select: `id, device_id as "deviceId", sn, product_name as "productName", product_code as "productCode", operation, detail,
      username as "user", created_at as "createdAt"`,
    from: 'rm_pt_operations',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: operationSortBy,
    defaultSort: 'created_at',
  };
  if (filter.sn) spec.where.push(`sn ilike ${param(spec.params, `%${filter.sn}%`)}`);
  if (filter.productCode) spec.where.push(`product_code ilike ${param(spec.params, `%${filter.productCode}%`)}`);
  if (filter.operation) spec.where.push(`operation = ${param(spec.params, filter.operation)}`);
  if (filter.user) spec.where.push(`username ilike ${param(spec.params, `%${filter.user}%`)}`);
  return pageRows<PtOperationRecord>(db, page, spec);
}
