import type { Page, PageQuery, ReportFields, reportSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A saved report as the reports projection keeps it (rm_reports), with its last sending (report_sendings). */
export type ReportRecord = ReportFields & {
  id: string;
  tenantId: string;
  lastSentAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const REPORT = `r.id, r.tenant_id as "tenantId", r.name, r.device_ids as "deviceIds", r.group_id as "groupId", r.variables, r.fn,
  r.cycle, r.time_zone as "timeZone", r.frequency, r.hour, r.contact_ids as "contactIds", r.remark,
  (select max(s.claimed_at) from report_sendings s where s.report_id = r.id) as "lastSentAt",
  r.created_at as "createdAt", r.updated_at as "updatedAt"`;

/** A saved report of a tenant, by id. */
export async function reportById(db: Sql, tenantId: string, id: string): Promise<ReportRecord | null> {
  return (
    (await db.query<ReportRecord>(`select ${REPORT} from rm_reports r where r.id = $1 and r.tenant_id = $2`, [id, tenantId])).rows[0] ??
    null
  );
}

export interface ReportFilter {
  /** A part of the name, any case. */
  name?: string;
  frequency?: ReportFields['frequency'];
}
const sortBy = { createTime: 'r.created_at', name: 'lower(r.name)' } satisfies Record<(typeof reportSortable)[number], string>;

/** A page of a tenant's saved reports, newest first unless told. */
export async function reportsPage(db: Sql, tenantId: string, filter: ReportFilter, page: PageQuery): Promise<Page<ReportRecord>> {
  const spec: ListSpec = {
    select: REPORT,
    from: 'rm_reports r',
    where: ['r.tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'r.created_at',
  };
  if (filter.name) spec.where.push(`r.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  if (filter.frequency) spec.where.push(`r.frequency = ${param(spec.params, filter.frequency)}`);
  return pageRows<ReportRecord>(db, page, spec);
}

/** Every scheduled report of every tenant: what the report scheduler looks at each tick. */
export async function scheduledReports(db: Sql): Promise<ReportRecord[]> {
  return (await db.query<ReportRecord>(`select ${REPORT} from rm_reports r where r.frequency <> 'none' order by r.created_at`)).rows;
}
