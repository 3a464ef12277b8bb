import { routes, type ResourceRow, type SystemOpsRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { appsPage } from '@iot/projections/app/read.ts';
import { permissionsOfRoles, rolesPage } from '@iot/projections/role/read.ts';

/** More roles or apps than a tenant keeps: the resources answer lists them all. */
const ALL = { page: 1, pageSize: 10_000, order: 'asc', sort: 'name' } as const;
/** Route permissions that no role or app is granted: a door that takes anyone logged in, or anyone at all. */
const ungranted = new Set(['public', 'authenticated', 'brokerSecret']);

/** System → resources (issue 19): the route table read with the tenant's roles and apps beside each permission. */
export const resourceQueryHandlers: Pick<Handlers<SystemOpsRoutes>, 'resource.list'> = {
  async 'resource.list'({ query }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const holders = new Map<string, { roles: ResourceRow['roles']; apps: ResourceRow['apps'] }>();
    const of = (permission: string) => {
      let entry = holders.get(permission);
      if (!entry) holders.set(permission, (entry = { roles: [], apps: [] }));
      return entry;
    };
    for (const role of (await rolesPage(db, tenantId, {}, ALL)).rows)
      for (const permission of await permissionsOfRoles(db, tenantId, [role.id]))
        of(permission).roles.push({ id: role.id, name: role.name });
    for (const app of (await appsPage(db, tenantId, {}, ALL)).rows)
      for (const permission of app.scope) of(permission).apps.push({ id: app.id, name: app.name });

    const keyword = query.keyword?.toLowerCase();
    const rows: ResourceRow[] = [];
    for (const [name, spec] of Object.entries(routes)) {
      const permission = spec.permission;
      if (ungranted.has(permission)) continue;
      if (query.module && spec.tag !== query.module) continue;
      if (keyword && ![spec.path, permission, spec.summary, name].some((s) => s.toLowerCase().includes(keyword))) continue;
      const held = holders.get(permission) ?? { roles: [], apps: [] };
      rows.push({ module: spec.tag, name, method: spec.method, path: spec.path, summary: spec.summary, permission, ...held });
    }
    return rows.sort((a, b) => a.module.localeCompare(b.module) || a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  },
};
