import { z } from 'zod';
import { enabledStatuses, entityId as id, optionalText } from './common.ts';

export const dictCode = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\w.-]+$/, 'letters, digits, _ . -');
const dictTypeFields = {
  code: dictCode,
  name: z.string().trim().min(1).max(64),
  status: z.enum(enabledStatuses).default('enabled'),
  remark: optionalText(256),
};
export const dictTypeCreateBody = z.object(dictTypeFields).strict();
export const dictTypeUpdateBody = z.object({ id, ...dictTypeFields }).strict();
export type DictTypeCreateBody = z.infer<typeof dictTypeCreateBody>;

const dictItemFields = {
  label: z.string().trim().min(1).max(64),
  value: z.string().trim().min(1).max(128),
  sort: z.coerce.number().int().min(0).max(100_000).default(0),
  status: z.enum(enabledStatuses).default('enabled'),
  remark: optionalText(256),
};
export const dictItemCreateBody = z.object({ typeId: id, ...dictItemFields }).strict();
export const dictItemUpdateBody = z.object({ typeId: id, itemId: id, ...dictItemFields }).strict();
export const dictItemDeleteBody = z.object({ typeId: id, itemId: id }).strict();

export const dictItemRow = z.object({
  id: z.string(),
  typeId: z.string(),
  label: z.string(),
  value: z.string(),
  sort: z.number().int(),
  status: z.enum(enabledStatuses),
  remark: z.string().nullable(),
});
export const dictTypeRow = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  status: z.enum(enabledStatuses),
  remark: z.string().nullable(),
  createdAt: z.string(),
});
export const dictTypeListQuery = z
  .object({ name: z.string().trim().max(64).optional(), code: z.string().trim().max(64).optional() })
  .strict();
export const dictItemListQuery = z
  .object({ typeId: id.optional(), code: dictCode.optional(), label: z.string().trim().max(64).optional() })
  .strict();
export const dictSortable = ['createdAt', 'code', 'name'] as const;
export const dictItemSortable = ['sort', 'label', 'value'] as const;
