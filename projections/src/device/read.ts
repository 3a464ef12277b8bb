import type { Sql } from '@iot/contracts/ports/sql.ts';

// The device read module begins here with what the group capability asks of devices; the device reads join it later.

/** Whether any device of the tenant is in the group. */
export async function anyDeviceInGroup(db: Sql, tenantId: string, groupId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_devices where tenant_id = $1 and group_id = $2 limit 1', [tenantId, groupId])).rowCount > 0;
}

/** Those of `deviceIds` that are devices of the tenant. */
export async function devicesOfTenant(db: Sql, tenantId: string, deviceIds: string[]): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  const rows = await db.query<{ id: string }>('select id from rm_devices where tenant_id = $1 and id = any($2)', [tenantId, deviceIds]);
  return rows.rows.map((r) => r.id);
}

/** Whether the device is one of the tenant's, of this product. */
export async function deviceIsOfProduct(db: Sql, tenantId: string, deviceId: string, productId: string): Promise<boolean> {
  return (
    (await db.query('select 1 from rm_devices where id = $1 and tenant_id = $2 and product_id = $3', [deviceId, tenantId, productId]))
      .rowCount > 0
  );
}

/** The group a device is in now (null: none, or no such device). */
export async function deviceGroupOf(db: Sql, deviceId: string): Promise<string | null> {
  return (
    (await db.query<{ groupId: string | null }>('select group_id as "groupId" from rm_devices where id = $1', [deviceId])).rows[0]
      ?.groupId ?? null
  );
}

/** A device's fields as a rule chain's enrich node adds them to a message (never its secret); null when the tenant has none such. */
export async function deviceForRules(db: Sql, tenantId: string, deviceId: string): Promise<Record<string, unknown> | null> {
  const rows = await db.query<Record<string, unknown>>(
    `select id, sn, name, product_id as "productId", group_id as "groupId", gateway_id as "gatewayId", node_type as "nodeType",
       status, enabled, lng, lat, address, version, tags, remark
     from rm_devices where tenant_id = $1 and id = $2`,
    [tenantId, deviceId],
  );
  return rows.rows[0] ?? null;
}

/** A product's fields as a rule chain's enrich node adds them to a message (not its thing model). */
export async function productForRules(db: Sql, tenantId: string, productId: string): Promise<Record<string, unknown> | null> {
  const rows = await db.query<Record<string, unknown>>(
    `select id, name, code, type, category, model, manufacturer, protocol, status from rm_products where tenant_id = $1 and id = $2`,
    [tenantId, productId],
  );
  return rows.rows[0] ?? null;
}
