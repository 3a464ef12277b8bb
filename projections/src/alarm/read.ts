import type { Sql } from '@iot/contracts/ports/sql.ts';

/** Those of `contactIds` that are contacts of the tenant. */
export async function contactsOfTenant(db: Sql, tenantId: string, contactIds: string[]): Promise<string[]> {
  if (contactIds.length === 0) return [];
  const rows = await db.query<{ id: string }>('select id from rm_contacts where tenant_id = $1 and id = any($2)', [tenantId, contactIds]);
  return rows.rows.map((r) => r.id);
}

/** Whether the notification template is one of the tenant's. */
export async function notifyTemplateExists(db: Sql, tenantId: string, templateId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_notify_templates where id = $1 and tenant_id = $2', [templateId, tenantId])).rowCount > 0;
}

/** Whether a notification configuration of the tenant sends through the template. */
export async function notifyTemplateInUse(db: Sql, tenantId: string, templateId: string): Promise<boolean> {
  return (
    (await db.query('select 1 from rm_notify_configs where tenant_id = $1 and template_id = $2 limit 1', [tenantId, templateId])).rowCount >
    0
  );
}
