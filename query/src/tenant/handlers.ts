import type { TenantRoutes, TenantRow } from '@iot/contracts';
import type { Handlers } from '@iot/contracts/http/handler.ts';
import { iso, isoOrNull, pageOf, param, type ListSpec } from '../shared/paging.ts';

const toTenantRow = (r: Record<string, unknown>): TenantRow => ({
  id: r.id as string,
  name: r.name as string,
  contactName: r.contact_name as string,
  company: r.company as string,
  phone: (r.phone as string | null) ?? null,
  email: (r.email as string | null) ?? null,
  status: r.status as TenantRow['status'],
  registerMethod: r.register_method as TenantRow['registerMethod'],
  applyTime: iso(r.apply_time),
  auditTime: isoOrNull(r.audit_time),
  rejectReason: (r.reject_reason as string | null) ?? null,
});

/** The tenant audit list of the system administrator (spec §2 tenant audit list). */
export const tenantQueryHandlers: Pick<Handlers<TenantRoutes>, 'tenant.list'> = {
  async 'tenant.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: '*',
      from: 'rm_tenants',
      where: [],
      params: [],
      sortable: { applyTime: 'apply_time', auditTime: 'audit_time', name: 'name', status: 'status' },
      defaultSort: 'apply_time',
    };
    if (q.status) spec.where.push(`status = ${param(spec.params, q.status)}`);
    if (q.name) spec.where.push(`(name ilike ${param(spec.params, `%${q.name}%`)} or contact_name ilike $${spec.params.length})`);
    return pageOf(ctx.ports.db, q, spec, toTenantRow);
  },
};
