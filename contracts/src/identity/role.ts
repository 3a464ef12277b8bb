import { z } from 'zod';
import { entityId as id, idList, optionalText } from './common.ts';

/** Built-in roles every tenant gets on approval. */
export const builtinRoles = ['tenantAdmin', 'operator', 'auditor', 'analyst', 'tester'] as const;
export type BuiltinRole = (typeof builtinRoles)[number];

/** Spec §5: role name required and unique within the tenant. */
export const roleName = z.string().trim().min(1).max(32);
export const roleCreateBody = z.object({ name: roleName, remark: optionalText(256), menuIds: idList.default([]) }).strict();
export type RoleCreateBody = z.infer<typeof roleCreateBody>;
export const roleUpdateBody = z.object({ id, name: roleName, remark: optionalText(256) }).strict();
export type RoleUpdateBody = z.infer<typeof roleUpdateBody>;
export const roleMenuBody = z.object({ id, menuIds: idList }).strict();
export type RoleMenuBody = z.infer<typeof roleMenuBody>;
export const roleCheckQuery = z.object({ name: roleName, id: id.optional() }).strict();

export const roleRow = z.object({
  id: z.string(),
  name: z.string(),
  remark: z.string().nullable(),
  menuIds: z.array(z.string()),
  builtin: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type RoleRow = z.infer<typeof roleRow>;
export const roleListQuery = z.object({ name: z.string().trim().max(32).optional() }).strict();
export const roleSortable = ['createdAt', 'name'] as const;
