import type { ProductEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Products with their draft thing model, and every published version of it. */
export const productsProjection = projection<ProductEvent>({
  name: 'products',
  handles: [
    'ProductCreated',
    'ProductUpdated',
    'ProductFunctionDefined',
    'ProductFunctionRemoved',
    'ProductThingModelImported',
    'ProductPublished',
    'ProductUnpublished',
    'ProductDeleted',
  ],
  tables: ['rm_products', 'rm_product_versions'],
  schema: `
    create table rm_products (
      id text primary key,
      tenant_id text not null,
      key text not null,
      name text not null,
      code text not null,
      type text not null,
      category text,
      version text,
      company text,
      model text,
      manufacturer text,
      protocol text not null,
      description text,
      status text not null default 'unpublished',
      model_version int not null default 0,
      functions jsonb not null default '[]',
      created_by text not null,
      updated_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_products_tenant on rm_products (tenant_id, created_at desc);
    create table rm_product_versions (
      product_id text not null,
      version int not null,
      functions jsonb not null,
      published_at timestamptz not null,
      published_by text not null,
      primary key (product_id, version)
    );`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const by = event.metadata.actor.id;
    const d = event.data;
    const touch = (set: string, params: unknown[]) =>
      tx.query(`update rm_products set ${set}, updated_at = $2, updated_by = $3 where id = $1`, [d.productId, at, by, ...params]);
    switch (event.type) {
      case 'ProductCreated': {
        const f = event.data.fields;
        await tx.query(
          `insert into rm_products (id, tenant_id, key, name, code, type, category, version, company, model, manufacturer, protocol,
             description, functions, created_by, updated_by, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16, $16) on conflict (id) do nothing`,
          [
            event.data.productId,
            event.metadata.tenantId,
            event.data.key,
            f.name,
            f.code,
            f.type,
            f.category,
            f.version,
            f.company,
            f.model,
            f.manufacturer,
            f.protocol,
            f.description,
            JSON.stringify(event.data.functions),
            by,
            at,
          ],
        );
        return;
      }
      case 'ProductUpdated': {
        const f = event.data.fields;
        await touch(
          'name = $4, code = $5, type = $6, category = $7, version = $8, company = $9, model = $10, manufacturer = $11, protocol = $12, description = $13',
          [f.name, f.code, f.type, f.category, f.version, f.company, f.model, f.manufacturer, f.protocol, f.description],
        );
        return;
      }
      case 'ProductFunctionDefined':
        // Replaced in place when the identifier exists, else appended: the draft's order is the order of definition.
        await touch(
          `functions = case when exists (select 1 from jsonb_array_elements(functions) f where f->>'identifier' = $4::jsonb->>'identifier')
             then (select jsonb_agg(case when f->>'identifier' = $4::jsonb->>'identifier' then $4::jsonb else f end order by n)
                   from jsonb_array_elements(functions) with ordinality as x(f, n))
             else functions || jsonb_build_array($4::jsonb) end`,
          [JSON.stringify(event.data.function)],
        );
        return;
      case 'ProductFunctionRemoved':
        await touch(
          `functions = coalesce((select jsonb_agg(f order by n) from jsonb_array_elements(functions) with ordinality as x(f, n)
             where f->>'identifier' <> $4), '[]')`,
          [event.data.identifier],
        );
        return;
      case 'ProductThingModelImported':
        await touch('functions = $4', [JSON.stringify(event.data.functions)]);
        return;
      case 'ProductPublished':
        await touch(`status = 'published', model_version = greatest(model_version, $4)`, [event.data.version]);
        await tx.query(
          `insert into rm_product_versions (product_id, version, functions, published_at, published_by) values ($1, $2, $3, $4, $5)
           on conflict do nothing`,
          [d.productId, event.data.version, JSON.stringify(event.data.functions), at, by],
        );
        return;
      case 'ProductUnpublished':
        await touch(`status = 'unpublished'`, []);
        return;
      case 'ProductDeleted':
        await tx.query('delete from rm_products where id = $1', [d.productId]);
        await tx.query('delete from rm_product_versions where product_id = $1', [d.productId]);
        return;
    }
  },
});
