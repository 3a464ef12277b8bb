import { z } from 'zod';
import { groupTypes } from '../constants.ts';
import { entityId as id, optionalText } from './common.ts';

export type GroupType = (typeof groupTypes)[number];

/** Spec §5: group name and type required. */
const groupFields = {
  name: z.string().trim().min(1).max(64),
  type: z.enum(groupTypes),
  location: optionalText(256),
  sort: z.coerce.number().int().min(0).max(100_000).default(0),
  parentId: id.nullish().transform((v) => v ?? null),
};
export const groupCreateBody = z.object(groupFields).strict();
export type GroupCreateBody = z.infer<typeof groupCreateBody>;
export const groupUpdateBody = z.object({ id, ...groupFields }).strict();
export type GroupUpdateBody = z.infer<typeof groupUpdateBody>;

export const groupRow = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(groupTypes),
  location: z.string().nullable(),
  sort: z.number().int(),
  parentId: z.string().nullable(),
  createdAt: z.string(),
});
export type GroupRow = z.infer<typeof groupRow>;
export type GroupNode = GroupRow & { children: GroupNode[] };
// Named, so that OpenAPI describes the tree as a component its children refer to.
export const groupNode: z.ZodType<GroupNode> = groupRow.extend({ children: z.lazy(() => z.array(groupNode)) }).meta({ id: 'GroupNode' });

export const groupListQuery = z
  .object({ name: z.string().trim().max(64).optional(), type: z.enum(groupTypes).optional(), parentId: id.optional() })
  .strict();
export const groupSortable = ['sort', 'name', 'createdAt'] as const;
