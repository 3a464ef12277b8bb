import { z } from 'zod';
import { entityId as id, idList, optionalText } from './common.ts';

/** Built-in roles every tenant gets on approval. */
export const builtinRoles = ['tenantAdmin', 'operator', 'auditor', 'analyst', 'tester'] as const;
export type BuiltinRole = (typeof builtinRoles)[number];

/** The built-in roles' names and remarks in both languages; a tenant gets the Chinese ones (older tenants have English remarks). */
export const builtinRoleText: Record<BuiltinRole, Record<'zh' | 'en', { name: string; remark: string }>> = {
  tenantAdmin: {
    zh: { name: '租户管理员', remark: '租户管理员：租户内的一切' },
    en: { name: 'Tenant administrator', remark: 'Tenant administrator: everything in the tenant' },
  },
  operator: {
    zh: { name: '运维人员', remark: '运维人员：设备、场景、规则、告警、转发' },
    en: { name: 'Operator', remark: 'Operator: devices, scenes, rules, alarms, forwarding' },
  },
  auditor: {
    zh: { name: '审计员', remark: '审计员：查看一切，以及操作日志和导出' },
    en: { name: 'Auditor', remark: 'Auditor: reads everything, the operation log and its export' },
  },
  analyst: {
    zh: { name: '数据分析员', remark: '数据分析员：数据分析与统计' },
    en: { name: 'Analyst', remark: 'Analyst: data analysis and statistics' },
  },
  tester: {
    zh: { name: '测试员', remark: '产测/质检测试员：产品测试与质量检测' },
    en: { name: 'Tester', remark: 'PT/QC tester: product and quality tests' },
  },
};

const isBuiltinRole = (key: string | null): key is BuiltinRole => key !== null && Object.hasOwn(builtinRoleText, key);

/**
 * A role's name and remark as the caller reads them: a built-in role's own text follows the caller's language
 * (as built-in menu titles do); a name or remark the tenant changed is theirs and shown as written.
 */
export function roleTextOf(
  role: { builtin: string | null; name: string; remark: string | null },
  lang: 'zh' | 'en',
): { name: string; remark: string | null; renamed: boolean } {
  if (!isBuiltinRole(role.builtin)) return { name: role.name, remark: role.remark, renamed: false };
  const text = builtinRoleText[role.builtin];
  const renamed = role.name !== text.zh.name && role.name !== text.en.name;
  const ownRemark = role.remark === null || (role.remark !== text.zh.remark && role.remark !== text.en.remark);
  return { name: renamed ? role.name : text[lang].name, remark: ownRemark ? role.remark : text[lang].remark, renamed };
}

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
  /** A built-in role whose name the tenant changed (its name is then shown as written, in every language). */
  renamed: z.boolean(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type RoleRow = z.infer<typeof roleRow>;
export const roleListQuery = z.object({ name: z.string().trim().max(32).optional() }).strict();
export const roleSortable = ['createdAt', 'name'] as const;
