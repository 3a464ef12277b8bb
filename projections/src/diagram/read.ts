import type { DiagramFields, Page, PageQuery, TopoElementFields, diagramSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A diagram as the diagrams projection keeps it (rm_diagrams); diagrams saved before edges and canvas settings have none. */
export type DiagramRecord = Omit<DiagramFields, 'canvas'> & {
  canvas: DiagramFields['canvas'] | null;
  id: string;
  tenantId: string;
  createdAt: Date;
  updatedAt: Date;
};

const DIAGRAM = `id, tenant_id as "tenantId", name, remark, background, widgets, edges, canvas, created_at as "createdAt", updated_at as "updatedAt"`;

/** A diagram of a tenant, by id. */
export async function diagramById(db: Sql, tenantId: string, id: string): Promise<DiagramRecord | null> {
  return (
    (await db.query<DiagramRecord>(`select ${DIAGRAM} from rm_diagrams where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null
  );
}

const sortBy = { createTime: 'created_at', updateTime: 'updated_at', name: 'lower(name)' } satisfies Record<
  (typeof diagramSortable)[number],
  string
>;

/** A page of a tenant's diagrams, newest first unless told; `name` a part of the name, any case. */
export async function diagramsPage(db: Sql, tenantId: string, filter: { name?: string }, page: PageQuery): Promise<Page<DiagramRecord>> {
  const spec: ListSpec = {
    select: DIAGRAM,
    from: 'rm_diagrams',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<DiagramRecord>(db, page, spec);
}

/** A topo element as the topo elements projection keeps it (rm_topo_elements). */
export type TopoElementRecord = TopoElementFields & { id: string; tenantId: string; createdAt: Date; updatedAt: Date };

const ELEMENT = `id, tenant_id as "tenantId", name, width, height, remark, image_file_id as "imageFileId", created_at as "createdAt", updated_at as "updatedAt"`;

/** A page of a tenant's topo elements, newest first unless told; `name` a part of the name, any case. */
export async function topoElementsPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string },
  page: PageQuery,
): Promise<Page<TopoElementRecord>> {
  const spec: ListSpec = {
    select: ELEMENT,
    from: 'rm_topo_elements',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<TopoElementRecord>(db, page, spec);
}

/** The names of the tenant's diagrams that place the topo element, by name: what keeps it from being deleted. */
export async function diagramsUsingTopoElement(db: Sql, tenantId: string, elementId: string): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `select name from rm_diagrams where tenant_id = $1 and widgets @> $2::jsonb order by lower(name)`,
    [tenantId, JSON.stringify([{ elementId }])],
  );
  return rows.rows.map((r) => r.name);
}

/** Every topo element's name by tenant, oldest first: what name claims taken before claims existed are made from. */
export async function topoElementNames(db: Sql): Promise<Array<{ id: string; tenantId: string; name: string }>> {
  return (
    await db.query<{ id: string; tenantId: string; name: string }>(
      'select id, tenant_id as "tenantId", name from rm_topo_elements order by created_at',
    )
  ).rows;
}
