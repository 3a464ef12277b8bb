import { z } from 'zod';

/** An aggregate id in a body or query. */
export const entityId = z.string().trim().min(1).max(64);
export const idBody = z.object({ id: entityId }).strict();
export type IdBody = z.infer<typeof idBody>;
/** A free text field that may be left out or cleared. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));
/** `a,b,c` in a query string or an array in a body. */
export const idList = z
  .union([z.array(entityId), z.string().transform((v) => v.split(',').filter(Boolean))])
  .pipe(z.array(entityId).max(200));
export const enabledStatuses = ['enabled', 'stopped'] as const;
export type EnabledStatus = (typeof enabledStatuses)[number];
export const isoTime = z.string();
