import { z } from 'zod';
import { limits } from '../constants.ts';
import { entityId as id, optionalText } from './common.ts';

/** Spec §6: entry types of the menu tree. */
export const menuTypes = ['menu', 'button', 'interface', 'tab', 'appMenu'] as const;
export type MenuType = (typeof menuTypes)[number];

/** Spec §5: menu name required, at most 10 characters; path required. */
const menuFields = {
  type: z.enum(menuTypes),
  name: z.string().trim().min(1).max(limits.menuName.max),
  routerName: optionalText(64),
  icon: optionalText(64),
  permission: z
    .string()
    .trim()
    .regex(/^[\w-]+:[\w-]+(:[\w-]+)?$/, 'area:thing:action')
    .max(128)
    .nullish()
    .transform((v) => v ?? null),
  path: z.string().trim().min(1).max(256),
  component: optionalText(256),
  sort: z.coerce.number().int().min(0).max(100_000).default(0),
  parentId: id.nullish().transform((v) => v ?? null),
};
export const menuCreateBody = z.object(menuFields).strict();
export type MenuCreateBody = z.infer<typeof menuCreateBody>;
export const menuUpdateBody = z.object({ id, ...menuFields }).strict();
export type MenuUpdateBody = z.infer<typeof menuUpdateBody>;
export const menuOrderBody = z
  .object({
    items: z
      .array(z.object({ id, sort: z.number().int().min(0).max(100_000), parentId: id.nullable().optional() }).strict())
      .min(1)
      .max(500),
  })
  .strict();
export type MenuOrderBody = z.infer<typeof menuOrderBody>;

export const menuRow = z.object({
  id: z.string(),
  type: z.enum(menuTypes),
  name: z.string(),
  /** The title the menu tree shows (spec §7: rows with title, path, icon, permission, type, component). */
  title: z.string(),
  routerName: z.string().nullable(),
  icon: z.string().nullable(),
  permission: z.string().nullable(),
  path: z.string(),
  component: z.string().nullable(),
  sort: z.number().int(),
  parentId: z.string().nullable(),
  builtin: z.boolean(),
  /** A built-in entry whose name an administrator changed: show `title`, not a translation of its own. */
  renamed: z.boolean(),
});
export type MenuRow = z.infer<typeof menuRow>;
export type MenuNode = MenuRow & { children: MenuNode[] };
// Named, so that OpenAPI describes the tree as a component its children refer to.
export const menuNode: z.ZodType<MenuNode> = menuRow.extend({ children: z.lazy(() => z.array(menuNode)) }).meta({ id: 'MenuNode' });
export const menuTreeQuery = z.object({ parentId: id.optional(), type: z.enum(menuTypes).optional() }).strict();
