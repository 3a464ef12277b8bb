import type { Sql } from '@iot/contracts/ports/sql.ts';

// The device read module begins here with what the group capability asks of devices; the device reads join it later.

/** Whether any device of the tenant is in the group. */
export async function anyDeviceInGroup(db: Sql, tenantId: string, groupId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_devices where tenant_id = $1 and group_id = $2 limit 1', [tenantId, groupId])).rowCount > 0;
}
