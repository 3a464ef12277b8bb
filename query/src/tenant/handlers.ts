import type { TenantRoutes } from '@iot/contracts';
import type { Handlers } from '@iot/contracts/http/handler.ts';
import { tenantsPage } from '@iot/projections/tenant/read.ts';

/** The tenant audit list of the system administrator (spec §2 tenant audit list). */
export const tenantQueryHandlers: Pick<Handlers<TenantRoutes>, 'tenant.list'> = {
  async 'tenant.list'({ query: q }, ctx) {
    const page = await tenantsPage(ctx.ports.db, { status: q.status, name: q.name }, q);
    return {
      ...page,
      rows: page.rows.map((t) => ({
        id: t.id,
        name: t.name,
        contactName: t.contactName,
        company: t.company,
        phone: t.phone,
        email: t.email,
        status: t.status,
        registerMethod: t.registerMethod,
        applyTime: t.applyTime.toISOString(),
        auditTime: t.auditTime?.toISOString() ?? null,
        rejectReason: t.rejectReason,
      })),
    };
  },
};
