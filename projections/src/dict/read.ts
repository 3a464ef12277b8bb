import type { DictItemFields, DictTypeFields, Page, PageQuery, dictSortable, dictItemSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';
import type { Fields } from '../shared/row.ts';

/** A dictionary type of a tenant as the dicts projection keeps it (rm_dict_types). */
export type DictTypeRecord = Fields<DictTypeFields> & {
  id: string;
  tenantId: string;
  createdAt: Date;
  updatedAt: Date;
};
/** An item of a dictionary type (rm_dict_items). */
export type DictItemRecord = Fields<DictItemFields> & {
  id: string;
  typeId: string;
  tenantId: string;
};

const TYPE = `t.id, t.tenant_id as "tenantId", t.code, t.name, t.status, t.remark, t.created_at as "createdAt", t.updated_at as "updatedAt"`;
const ITEM = `i.id, i.type_id as "typeId", i.tenant_id as "tenantId", i.label, i.value, i.sort, i.status, i.remark`;

/** The columns a list sorts by, for each name the route's query allows. */
const typeSortBy = { createdAt: 't.created_at', code: 't.code', name: 't.name' } satisfies Record<(typeof dictSortable)[number], string>;

/** A page of a tenant's dictionary types, `name` and `code` parts of theirs; sorted as the route allows. */
export async function dictTypesPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string; code?: string },
  page: PageQuery,
): Promise<Page<DictTypeRecord>> {
  const spec: ListSpec = {
    select: TYPE,
    from: 'rm_dict_types t',
    where: ['t.tenant_id = $1'],
    params: [tenantId],
    sortable: typeSortBy,
    defaultSort: 't.created_at',
  };
  if (filter.name) spec.where.push(`t.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  if (filter.code) spec.where.push(`t.code ilike ${param(spec.params, `%${filter.code}%`)}`);
  return pageRows<DictTypeRecord>(db, page, spec);
}

/** The columns a list sorts by, for each name the route's query allows. */
const itemSortBy = { sort: 'i.sort', label: 'i.label', value: 'i.value' } satisfies Record<(typeof dictItemSortable)[number], string>;

/** A page of a tenant's dictionary items: of one type (by id or code), `label` a part of theirs; sorted as the route allows. */
export async function dictItemsPage(
  db: Sql,
  tenantId: string,
  filter: { typeId?: string; code?: string; label?: string },
  page: PageQuery,
): Promise<Page<DictItemRecord>> {
  const spec: ListSpec = {
    select: ITEM,
    from: 'rm_dict_items i join rm_dict_types t on t.id = i.type_id',
    where: ['i.tenant_id = $1'],
    params: [tenantId],
    sortable: itemSortBy,
    defaultSort: 'i.sort',
  };
  if (filter.typeId) spec.where.push(`i.type_id = ${param(spec.params, filter.typeId)}`);
  if (filter.code) spec.where.push(`t.code = ${param(spec.params, filter.code)}`);
  if (filter.label) spec.where.push(`i.label ilike ${param(spec.params, `%${filter.label}%`)}`);
  return pageRows<DictItemRecord>(db, page, spec);
}

/** Whether another type of the tenant has the code. */
export async function dictCodeTaken(db: Sql, tenantId: string, code: string, exceptTypeId: string): Promise<boolean> {
  const found = await db.query('select 1 from rm_dict_types where tenant_id = $1 and code = $2 and id <> $3 limit 1', [
    tenantId,
    code,
    exceptTypeId,
  ]);
  return found.rowCount > 0;
}

/** Every type's code by tenant: what code claims taken before claims existed are made from. */
export async function dictCodes(db: Sql): Promise<Array<{ id: string; tenantId: string; code: string }>> {
  return (await db.query<{ id: string; tenantId: string; code: string }>('select id, tenant_id as "tenantId", code from rm_dict_types'))
    .rows;
}
