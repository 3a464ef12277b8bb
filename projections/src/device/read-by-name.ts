import type { NodeType } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

// What device import and the broker's account hand-over ask by name or by id (issue 18); the lead may fold these into read.ts.

/** A product as a device is created from it: its type and latest published thing-model version. */
export type ProductForDevice = {
  id: string;
  code: string;
  name: string;
  nodeType: NodeType;
  modelVersion: number;
};

/** The tenant's products, with what a device of theirs is created from. */
export async function productsForDevices(db: Sql, tenantId: string): Promise<ProductForDevice[]> {
  return (
    await db.query<ProductForDevice>(
      'select id, code, name, type as "nodeType", model_version as "modelVersion" from rm_products where tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

/** The node type of a product of the tenant (null: no such product). */
export async function productNodeType(db: Sql, tenantId: string, productId: string): Promise<NodeType | null> {
  return (
    (
      await db.query<{ nodeType: NodeType }>('select type as "nodeType" from rm_products where id = $1 and tenant_id = $2', [
        productId,
        tenantId,
      ])
    ).rows[0]?.nodeType ?? null
  );
}

/** The tenant's devices among these SNs, with their node type. */
export async function devicesBySn(
  db: Sql,
  tenantId: string,
  sns: string[],
): Promise<Array<{ id: string; sn: string; nodeType: NodeType }>> {
  if (sns.length === 0) return [];
  return (
    await db.query<{ id: string; sn: string; nodeType: NodeType }>(
      'select id, sn, node_type as "nodeType" from rm_devices where tenant_id = $1 and sn = any($2)',
      [tenantId, sns],
    )
  ).rows;
}
