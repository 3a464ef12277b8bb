import type { GroupFields, GroupType, Page, PageQuery, groupSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';
import type { Fields } from '../shared/row.ts';

/** A group of a tenant's tree as the groups projection keeps it (rm_groups). */
export type GroupRecord = Fields<GroupFields> & {
  id: string;
  tenantId: string;
  createdAt: Date;
  createdBy: string;
  updatedAt: Date;
};

const GROUP = `id, tenant_id as "tenantId", parent_id as "parentId", name, type, location, sort, created_at as "createdAt",
  created_by as "createdBy", updated_at as "updatedAt"`;

/** A group of a tenant, by id. */
export async function groupById(db: Sql, tenantId: string, id: string): Promise<GroupRecord | null> {
  return (await db.query<GroupRecord>(`select ${GROUP} from rm_groups where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null;
}

/** The ids of a group and every group below it, in one tenant: the data scope of a `stationId`. */
export async function groupSubtree(db: Sql, tenantId: string, groupId: string): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `with recursive tree(id) as (
       select id from rm_groups where tenant_id = $1 and id = $2
       union
       select g.id from rm_groups g join tree on g.parent_id = tree.id where g.tenant_id = $1
     ) select id from tree`,
    [tenantId, groupId],
  );
  return result.rows.map((r) => r.id);
}

/** A group and its ancestors up to the root, in one tenant. */
export async function groupAncestry(db: Sql, tenantId: string, groupId: string): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `with recursive up(id, parent_id) as (
       select id, parent_id from rm_groups where tenant_id = $1 and id = $2
       union
       select g.id, g.parent_id from rm_groups g join up on g.id = up.parent_id where g.tenant_id = $1
     ) select id from up`,
    [tenantId, groupId],
  );
  return result.rows.map((r) => r.id);
}

export interface GroupFilter {
  /** Only these groups (a subtree). */
  ids?: string[];
  parentId?: string;
  /** A part of the name. */
  name?: string;
  type?: GroupType;
}
/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = { sort: 'sort', name: 'name', createdAt: 'created_at' } satisfies Record<(typeof groupSortable)[number], string>;

function groupSpec(tenantId: string, filter: GroupFilter): ListSpec {
  const spec: ListSpec = {
    select: GROUP,
    from: 'rm_groups',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'sort',
  };
  const { where, params } = spec;
  if (filter.ids) where.push(`id = any(${param(params, filter.ids)})`);
  if (filter.parentId) where.push(`parent_id = ${param(params, filter.parentId)}`);
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.type) where.push(`type = ${param(params, filter.type)}`);
  return spec;
}

/** A tenant's groups, filtered, in their order (sort, then name): what a tree is built from. */
export async function groupsOf(db: Sql, tenantId: string, filter: GroupFilter): Promise<GroupRecord[]> {
  const spec = groupSpec(tenantId, filter);
  return (await db.query<GroupRecord>(`select ${GROUP} from rm_groups where ${spec.where.join(' and ')} order by sort, name`, spec.params))
    .rows;
}

/** A page of a tenant's groups, filtered; sorted as the route allows. */
export async function groupsPage(db: Sql, tenantId: string, filter: GroupFilter, page: PageQuery): Promise<Page<GroupRecord>> {
  return pageRows<GroupRecord>(db, page, groupSpec(tenantId, filter));
}

/** The names of a tenant's groups by id (an id that is no group of the tenant is left out). */
export async function groupNames(db: Sql, tenantId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string }>('select id, name from rm_groups where tenant_id = $1 and id = any($2)', [
    tenantId,
    ids,
  ]);
  return new Map(rows.rows.map((r) => [r.id, r.name]));
}

/** Whether a group of the tenant has a group below it. */
export async function groupHasChildren(db: Sql, tenantId: string, id: string): Promise<boolean> {
  return (await db.query('select 1 from rm_groups where parent_id = $1 and tenant_id = $2 limit 1', [id, tenantId])).rowCount > 0;
}
