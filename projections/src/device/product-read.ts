import type { NodeType, Page, PageQuery, ProductStatus, ThingFunction, productSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A product with its draft thing model, as the products projection keeps it (rm_products), and what is counted of it. */
export type ProductRecord = {
  id: string;
  tenantId: string;
  key: string;
  name: string;
  code: string;
  type: NodeType;
  category: string | null;
  version: string | null;
  company: string | null;
  model: string | null;
  manufacturer: string | null;
  protocol: string;
  description: string | null;
  status: ProductStatus;
  /** The newest published version of the thing model (0: never published). */
  modelVersion: number;
  /** The draft thing model: what the next publication freezes. */
  functions: ThingFunction[];
  functionCount: number;
  /** Whether the draft differs from the newest published version (or nothing is published yet). */
  draftChanged: boolean;
  deviceCount: number;
  /** Usernames, or ids once the user is gone. */
  createdBy: string;
  updatedBy: string;
  createdAt: Date;
  updatedAt: Date;
};

const PRODUCT = `p.id, p.tenant_id as "tenantId", p.key, p.name, p.code, p.type, p.category, p.version, p.company, p.model,
  p.manufacturer, p.protocol, p.description, p.status, p.model_version as "modelVersion", p.functions,
  jsonb_array_length(p.functions) as "functionCount",
  p.functions is distinct from (select v.functions from rm_product_versions v where v.product_id = p.id order by v.version desc limit 1)
    as "draftChanged",
  (select count(*)::int from rm_devices d where d.tenant_id = p.tenant_id and d.product_id = p.id) as "deviceCount",
  coalesce((select username from rm_users u where u.id = p.created_by), p.created_by) as "createdBy",
  coalesce((select username from rm_users u where u.id = p.updated_by), p.updated_by) as "updatedBy",
  p.created_at as "createdAt", p.updated_at as "updatedAt"`;

/** A product of the tenant, by id. */
export async function productById(db: Sql, tenantId: string, id: string): Promise<ProductRecord | null> {
  return (
    (await db.query<ProductRecord>(`select ${PRODUCT} from rm_products p where p.id = $1 and p.tenant_id = $2`, [id, tenantId])).rows[0] ??
    null
  );
}

/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = { createTime: 'p.created_at', name: 'lower(p.name)', code: 'p.code' } satisfies Record<
  (typeof productSortable)[number],
  string
>;

/** A page of the tenant's products: `name` a part of the name or code, of a type and status. */
export async function productPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string; type?: NodeType; status?: ProductStatus },
  page: PageQuery,
): Promise<Page<ProductRecord>> {
  const spec: ListSpec = {
    select: PRODUCT,
    from: 'rm_products p',
    where: ['p.tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'p.created_at',
  };
  if (filter.name) spec.where.push(`(p.name ilike ${param(spec.params, `%${filter.name}%`)} or p.code ilike $${spec.params.length})`);
  if (filter.type) spec.where.push(`p.type = ${param(spec.params, filter.type)}`);
  if (filter.status) spec.where.push(`p.status = ${param(spec.params, filter.status)}`);
  return pageRows<ProductRecord>(db, page, spec);
}

/** A published version of a product's thing model. */
export type ProductVersionRecord = {
  version: number;
  publishedAt: Date;
  /** The publisher's username, or their id once the user is gone. */
  publishedBy: string;
  functionCount: number;
};

/** Every published version of a product's thing model, newest first. */
export async function productVersions(db: Sql, productId: string): Promise<ProductVersionRecord[]> {
  return (
    await db.query<ProductVersionRecord>(
      `select version, published_at as "publishedAt", coalesce((select username from rm_users u where u.id = v.published_by), published_by)
         as "publishedBy", jsonb_array_length(functions) as "functionCount"
       from rm_product_versions v where product_id = $1 order by version desc`,
      [productId],
    )
  ).rows;
}

/** The functions of a published version of a product's thing model (null: no such version). */
export async function publishedModel(db: Sql, productId: string, version: number): Promise<ThingFunction[] | null> {
  return (
    (
      await db.query<{ functions: ThingFunction[] }>('select functions from rm_product_versions where product_id = $1 and version = $2', [
        productId,
        version,
      ])
    ).rows[0]?.functions ?? null
  );
}
