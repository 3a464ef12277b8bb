import type { DomainEvent } from '../event.ts';
import type { BuiltinRole } from '../identity/role.ts';

/** What can happen to a role: its name, and the menus (hence permissions) it grants. */
export type RoleEvent =
  | DomainEvent<'RoleCreated', { roleId: string; name: string; remark: string | null; menuIds: string[]; builtin: BuiltinRole | null }>
  | DomainEvent<'RoleUpdated', { roleId: string; name: string; remark: string | null }>
  | DomainEvent<'RoleMenusGranted', { roleId: string; menuIds: string[] }>
  | DomainEvent<'RoleDeleted', { roleId: string }>;

export type RoleEventType = RoleEvent['type'];
