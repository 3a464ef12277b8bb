import type { PtAreaEvent, PtOperation, PtDeviceEvent } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import { projection } from '../projection.ts';

/** The operation each step of a device's test is recorded as (spec §3 Operation record). */
const operationOf: Record<PtDeviceEvent['type'], PtOperation> = {
  PtTested: 'test',
  PtReportGenerated: 'report',
  PtSubmitted: 'submit',
  PtReturnedToProduction: 'returnToProduction',
  PtUpgraded: 'upgrade',
  PtSnSet: 'setSn',
  PtQcTested: 'qcTest',
  PtQcFinished: 'qcFinish',
  PtQcSubmitted: 'qcSubmit',
  PtQcReturned: 'qcReturn',
};
/** The status a step leaves a device in; null: unchanged. */
const statusAfter = (e: PtDeviceEvent): string | null => {
  switch (e.type) {
    case 'PtTested':
      return 'tested';
    case 'PtReportGenerated':
      return 'reported';
    case 'PtSubmitted':
      return e.data.toQc ? 'submitted' : 'completed';
    case 'PtReturnedToProduction':
    case 'PtQcReturned':
      return 'returned';
    case 'PtUpgraded':
      return 'untested';
    case 'PtSnSet':
      return null;
    case 'PtQcTested':
      return 'qcTested';
    case 'PtQcFinished':
      return 'qcFinished';
    case 'PtQcSubmitted':
      return 'completed';
  }
};
/** What an operation record says beside its operation: the result, the reason, the SN, the package. */
const detailOf = (e: PtDeviceEvent): string | null => {
  switch (e.type) {
    case 'PtTested':
    case 'PtQcTested':
    case 'PtReportGenerated':
    case 'PtQcFinished':
      return e.data.passed ? 'passed' : 'failed';
    case 'PtReturnedToProduction':
    case 'PtQcReturned':
      return e.data.reason;
    case 'PtSnSet':
      return e.data.iccid ? `${e.data.productSn} / ${e.data.iccid}` : e.data.productSn;
    case 'PtUpgraded':
      return e.data.fileId;
    default:
      return null;
  }
};

const deviceTypes = Object.keys(operationOf) as PtDeviceEvent['type'][];
const isDeviceEvent = (e: { type: string }): e is PtDeviceEvent => (deviceTypes as string[]).includes(e.type);

async function applyDeviceStep(tx: Sql, event: StoredEventOf<PtDeviceEvent>) {
  const at = event.metadata.occurredAt;
  const tenantId = event.metadata.tenantId;
  const d = event.data;
  const passed = 'passed' in d && (event.type === 'PtTested' || event.type === 'PtQcTested') ? d.passed : null;
  await tx.query(
    `insert into rm_pt_devices (tenant_id, device_id, config_id, status, passed, updated_at)
     values ($1, $2, $3, coalesce($4::text, 'untested'), $5::boolean, $6)
     on conflict (tenant_id, device_id) do update set config_id = $3, status = coalesce($4::text, rm_pt_devices.status),
       passed = case when $4::text in ('tested', 'qcTested') then $5::boolean when $4::text in ('untested', 'returned') then null
         else rm_pt_devices.passed end,
       updated_at = $6`,
    [tenantId, d.deviceId, d.configId, statusAfter(event), passed, at],
  );
  if (event.type === 'PtSnSet')
    await tx.query('update rm_pt_devices set product_sn = $3, iccid = coalesce($4, iccid) where tenant_id = $1 and device_id = $2', [
      tenantId,
      d.deviceId,
      event.data.productSn,
      event.data.iccid,
    ]);
  if (event.type === 'PtReportGenerated' || event.type === 'PtQcFinished') {
    const r = event.data;
    await tx.query(
      `update rm_pt_devices set ${r.kind === 'pt' ? 'report_id' : 'qc_report_id'} = $3 where tenant_id = $1 and device_id = $2`,
      [tenantId, d.deviceId, r.reportId],
    );
    await tx.query(
      `insert into rm_pt_reports (id, tenant_id, kind, config_id, alias, device_id, sn, device_name, product_name, product_code, passed,
         checks, remark, tester, test_time, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) on conflict (id) do nothing`,
      [
        r.reportId,
        tenantId,
        r.kind,
        r.configId,
        r.alias,
        r.deviceId,
        r.sn,
        r.deviceName,
        r.productName,
        r.productCode,
        r.passed,
        JSON.stringify(r.checks),
        r.remark,
        r.operator,
        r.testedAt || at,
        at,
      ],
    );
  }
  await tx.query(
    `insert into rm_pt_operations (id, tenant_id, device_id, sn, product_name, product_code, operation, detail, username, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (id) do nothing`,
    [event.id, tenantId, d.deviceId, d.sn, d.productName, d.productCode, operationOf[event.type], detailOf(event), d.operator, at],
  );
}

/** Test configurations, batches, ICCIDs, the test status of devices, reports and operation records (issue 21). */
export const ptProjection = projection<PtAreaEvent>({
  name: 'pt',
  handles: [
    'PtConfigCreated',
    'PtConfigUpdated',
    'PtConfigDeleted',
    'PtUsersBound',
    'PtUsersUnbound',
    'PtBatchCreated',
    'PtBatchUpdated',
    'PtBatchDeleted',
    'PtIccidAdded',
    'PtIccidAssigned',
    'PtIccidDeleted',
    ...deviceTypes,
  ],
  tables: ['rm_pt_configs', 'rm_pt_batches', 'rm_pt_iccids', 'rm_pt_devices', 'rm_pt_reports', 'rm_pt_operations'],
  schema: `
    create table rm_pt_configs (
      id text primary key,
      tenant_id text not null,
      alias text not null,
      product_id text not null,
      product_name text not null,
      product_code text not null,
      batch_id text,
      qc_permission boolean not null,
      username text,
      has_password boolean not null,
      iccid_check boolean not null,
      parameters text[] not null,
      upgrade_file_id text,
      qc_tester_id text,
      bound_user_ids text[] not null default '{}',
      remark text,
      created_by text not null,
      created_at timestamptz not null
    );
    create index rm_pt_configs_tenant on rm_pt_configs (tenant_id, created_at desc);
    create table rm_pt_batches (
      id text primary key,
      tenant_id text not null,
      batch_no text not null,
      product_id text,
      quantity int,
      remark text,
      created_at timestamptz not null
    );
    create index rm_pt_batches_tenant on rm_pt_batches (tenant_id, created_at desc);
    create table rm_pt_iccids (
      tenant_id text not null,
      iccid text not null,
      batch_id text,
      device_id text,
      device_sn text,
      remark text,
      created_at timestamptz not null,
      primary key (tenant_id, iccid)
    );
    create index rm_pt_iccids_created on rm_pt_iccids (tenant_id, created_at desc);
    create table rm_pt_devices (
      tenant_id text not null,
      device_id text not null,
      config_id text not null,
      status text not null,
      passed boolean,
      product_sn text,
      iccid text,
      report_id text,
      qc_report_id text,
      updated_at timestamptz not null,
      primary key (tenant_id, device_id)
    );
    create table rm_pt_reports (
      id text primary key,
      tenant_id text not null,
      kind text not null,
      config_id text not null,
      alias text not null,
      device_id text not null,
      sn text not null,
      device_name text not null,
      product_name text not null,
      product_code text not null,
      passed boolean not null,
      checks jsonb not null,
      remark text,
      tester text not null,
      test_time timestamptz not null,
      created_at timestamptz not null
    );
    create index rm_pt_reports_tenant on rm_pt_reports (tenant_id, kind, created_at desc);
    create table rm_pt_operations (
      id text primary key,
      tenant_id text not null,
      device_id text not null,
      sn text not null,
      product_name text not null,
      product_code text not null,
      operation text not null,
      detail text,
      username text not null,
      created_at timestamptz not null
    );
    create index rm_pt_operations_tenant on rm_pt_operations (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const tenantId = event.metadata.tenantId;
    if (isDeviceEvent(event)) return applyDeviceStep(tx, event as StoredEventOf<PtDeviceEvent>);
    switch (event.type) {
      case 'PtConfigCreated':
      case 'PtConfigUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_pt_configs (id, tenant_id, alias, product_id, product_name, product_code, batch_id, qc_permission, username,
             has_password, iccid_check, parameters, upgrade_file_id, qc_tester_id, remark, created_by, created_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
           on conflict (id) do update set alias = $3, product_id = $4, product_name = $5, product_code = $6, batch_id = $7,
             qc_permission = $8, username = $9, has_password = $10, iccid_check = $11, parameters = $12, upgrade_file_id = $13,
             qc_tester_id = $14, remark = $15`,
          [
            d.configId,
            tenantId,
            d.alias,
            d.productId,
            d.productName,
            d.productCode,
            d.batchId,
            d.qcPermission,
            d.username,
            d.hasPassword,
            d.iccidCheck,
            d.parameters,
            d.upgradeFileId,
            d.qcTesterId,
            d.remark,
            event.metadata.actor.id,
            at,
          ],
        );
        return;
      }
      case 'PtConfigDeleted':
        await tx.query('delete from rm_pt_configs where id = $1', [event.data.configId]);
        return;
      case 'PtUsersBound':
        await tx.query(
          `update rm_pt_configs set bound_user_ids = array(select distinct u from unnest(bound_user_ids || $2::text[]) u order by u)
           where id = $1`,
          [event.data.configId, event.data.userIds],
        );
        return;
      case 'PtUsersUnbound':
        await tx.query(
          'update rm_pt_configs set bound_user_ids = array(select u from unnest(bound_user_ids) u where u <> all($2::text[])) where id = $1',
          [event.data.configId, event.data.userIds],
        );
        return;
      case 'PtBatchCreated':
      case 'PtBatchUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_pt_batches (id, tenant_id, batch_no, product_id, quantity, remark, created_at) values ($1, $2, $3, $4, $5, $6, $7)
           on conflict (id) do update set batch_no = $3, product_id = $4, quantity = $5, remark = $6`,
          [d.batchId, tenantId, d.batchNo, d.productId, d.quantity, d.remark, at],
        );
        return;
      }
      case 'PtBatchDeleted':
        await tx.query('delete from rm_pt_batches where id = $1', [event.data.batchId]);
        return;
      case 'PtIccidAdded':
        await tx.query(
          `insert into rm_pt_iccids (tenant_id, iccid, batch_id, remark, created_at) values ($1, $2, $3, $4, $5)
           on conflict (tenant_id, iccid) do update set batch_id = $3, remark = $4, device_id = null, device_sn = null, created_at = $5`,
          [tenantId, event.data.iccid, event.data.batchId, event.data.remark, at],
        );
        return;
      case 'PtIccidAssigned':
        await tx.query('update rm_pt_iccids set device_id = $3, device_sn = $4 where tenant_id = $1 and iccid = $2', [
          tenantId,
          event.data.iccid,
          event.data.deviceId,
          event.data.sn,
        ]);
        return;
      case 'PtIccidDeleted':
        await tx.query('delete from rm_pt_iccids where tenant_id = $1 and iccid = $2', [tenantId, event.data.iccid]);
        return;
    }
  },
});
