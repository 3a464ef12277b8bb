import { DomainError } from '@iot/contracts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';

/** Refuses (NOT_FOUND, naming `field`) a group that is not one of the tenant's: what a user, a device or a child points to. */
export async function assertOwnGroup(lookups: Lookups, tenantId: string, groupId: string, field: string): Promise<void> {
  if (!(await lookups.groupExists(tenantId, groupId))) throw new DomainError('NOT_FOUND', { field });
}
