import { SYSTEM_TENANT, type Page, type PageQuery, type RegisterMethod, type TenantStatus } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A tenant, from its registration on, as the tenants projection keeps it (rm_tenants). */
export type TenantRecord = {
  id: string;
  name: string;
  contactName: string;
  company: string;
  phone: string | null;
  email: string | null;
  status: TenantStatus;
  registerMethod: RegisterMethod;
  applyTime: Date;
  auditTime: Date | null;
  auditedBy: string | null;
  rejectReason: string | null;
  adminUserId: string | null;
  updatedAt: Date;
};

const TENANT = `id, name, contact_name as "contactName", company, phone, email, status, register_method as "registerMethod",
  apply_time as "applyTime", audit_time as "auditTime", audited_by as "auditedBy", reject_reason as "rejectReason",
  admin_user_id as "adminUserId", updated_at as "updatedAt"`;

/** A tenant by id. */
export async function tenantById(db: Sql, id: string): Promise<TenantRecord | null> {
  return (await db.query<TenantRecord>(`select ${TENANT} from rm_tenants where id = $1`, [id])).rows[0] ?? null;
}

/**
 * Whether a tenant may act: approved and not stopped. The login, every token check and the MQTT
 * device authentication ask this one question.
 */
export async function isTenantActive(db: Sql, tenantId: string): Promise<boolean> {
  if (tenantId === SYSTEM_TENANT) return true;
  const row = (await db.query<{ status: TenantStatus }>('select status from rm_tenants where id = $1', [tenantId])).rows[0];
  return row?.status === 'approved';
}

/** The columns the list sorts by, for each name the route's query allows. */
const sortBy = { applyTime: 'apply_time', auditTime: 'audit_time', name: 'name', status: 'status' };

/** A page of the platform's tenants: of one status, `name` a part of their name or contact's; sorted as the route allows. */
export async function tenantsPage(db: Sql, filter: { status?: TenantStatus; name?: string }, page: PageQuery): Promise<Page<TenantRecord>> {
  const spec: ListSpec = { select: TENANT, from: 'rm_tenants', where: [], params: [], sortable: sortBy, defaultSort: 'apply_time' };
  if (filter.status) spec.where.push(`status = ${param(spec.params, filter.status)}`);
  if (filter.name) {
    const like = param(spec.params, `%${filter.name}%`);
    spec.where.push(`(name ilike ${like} or contact_name ilike ${like})`);
  }
  return pageRows<TenantRecord>(db, page, spec);
}

/** The latest registration under this name (any case) that is not approved: under review or refused. */
export async function openRegistrationNamed(db: Sql, name: string): Promise<{ id: string; status: 'underReview' | 'rejected' } | null> {
  const found = await db.query<{ id: string; status: 'underReview' | 'rejected' }>(
    `select id, status from rm_tenants where lower(name) = lower($1) and status in ('underReview', 'rejected') order by apply_time desc limit 1`,
    [name],
  );
  return found.rows[0] ?? null;
}

/** Whether a tenant that is not refused has the name, whatever its case. */
export async function tenantNameInUse(db: Sql, name: string): Promise<boolean> {
  return (await db.query(`select 1 from rm_tenants where lower(name) = lower($1) and status <> 'rejected' limit 1`, [name])).rowCount > 0;
}

/** Tenants once approved (stopped ones too), with their administrator: those the built-in roles are provisioned for. */
export async function approvedTenants(db: Sql): Promise<Array<{ id: string; adminUserId: string | null }>> {
  return (
    await db.query<{ id: string; adminUserId: string | null }>(
      `select id, admin_user_id as "adminUserId" from rm_tenants where status in ('approved', 'stopped')`,
    )
  ).rows;
}

/** Registrations under review with their contacts: what claims taken before claims existed are made from. */
export async function pendingRegistrations(
  db: Sql,
): Promise<Array<{ id: string; email: string | null; phone: string | null; applyTime: Date }>> {
  return (
    await db.query<{ id: string; email: string | null; phone: string | null; applyTime: Date }>(
      `select id, email, phone, apply_time as "applyTime" from rm_tenants where status = 'underReview' order by apply_time, id`,
    )
  ).rows;
}
