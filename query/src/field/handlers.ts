import { DomainError, isSiteGroupType, type FieldRoutes, type SiteConfigRow } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { devicePage } from '@iot/projections/device/read.ts';
import { configuredSiteIds, fieldDefinitionsOf, fieldSiteOf } from '@iot/projections/field/read.ts';
import { groupById, groupsOf, type GroupRecord } from '@iot/projections/group/read.ts';

/** Devices the screen lists beside a site at most. */
const MAX_DEVICES = 500;

async function siteGroup(ctx: RequestContext, groupId: string): Promise<GroupRecord> {
  const group = await groupById(ctx.ports.db, callerOf(ctx).tenantId, groupId);
  if (!group) throw new DomainError('NOT_FOUND', { field: 'groupId' });
  if (!isSiteGroupType(group.type)) throw new DomainError('NOT_A_SITE', { field: 'groupId' });
  return group;
}

/** Field configuration reads (issue 20): the site picker's tree, a site's parameters and devices, the field definitions. */
export const fieldQueryHandlers: Pick<
  Handlers<FieldRoutes>,
  'fieldConfig.sites' | 'fieldConfig.site' | 'fieldConfig.devices' | 'fieldConfig.fields'
> = {
  async 'fieldConfig.sites'(_input, ctx) {
    const tenantId = callerOf(ctx).tenantId;
    const [groups, configured] = await Promise.all([groupsOf(ctx.ports.db, tenantId, {}), configuredSiteIds(ctx.ports.db, tenantId)]);
    return groups.map((g) => ({
      id: g.id,
      parentId: g.parentId,
      name: g.name,
      type: g.type,
      isSite: isSiteGroupType(g.type),
      configured: configured.has(g.id),
    }));
  },

  async 'fieldConfig.site'({ query }, ctx) {
    const group = await siteGroup(ctx, query.groupId);
    const saved = await fieldSiteOf(ctx.ports.db, callerOf(ctx).tenantId, group.id);
    const row: SiteConfigRow = {
      groupId: group.id,
      name: group.name,
      type: group.type,
      commissioningDate: saved?.commissioningDate ?? null,
      ratedCapacityKw: saved?.ratedCapacityKw ?? null,
      address: saved?.address ?? '',
      contacts: saved?.contacts ?? [],
      custom: saved?.custom ?? {},
      updateTime: saved ? saved.updatedAt.toISOString() : null,
    };
    return row;
  },

  async 'fieldConfig.devices'({ query }, ctx) {
    const group = await siteGroup(ctx, query.groupId);
    const page = await devicePage(
      ctx.ports.db,
      callerOf(ctx).tenantId,
      { groupId: group.id },
      { page: 1, pageSize: MAX_DEVICES, order: 'asc', sort: 'name' },
    );
    return page.rows.map((d) => ({
      id: d.id,
      sn: d.sn,
      name: d.name,
      productName: d.productName,
      groupName: d.groupName,
      status: d.status,
    }));
  },

  async 'fieldConfig.fields'(_input, ctx) {
    return fieldDefinitionsOf(ctx.ports.db, callerOf(ctx).tenantId);
  },
};
