import { z } from 'zod';

/** Spec §8: every answer is `{ code, msg, data }`; `code` 200 means success. */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ code: z.number().int(), msg: z.string(), data });

export type Envelope<T> = { code: number; msg: string; data: T };

/** One pagination shape for every list (STYLE.md: one way to do a thing). */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(500).default(20),
  sort: z.string().max(64).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type PageQuery = z.infer<typeof pageQuery>;

/** The paging query of one list: `sort` only by the names the list allows (never `__proto__` or a column it hides). */
export const listQuery = <const S extends readonly [string, ...string[]], F extends z.ZodRawShape>(sortable: S, filters: F) =>
  pageQuery.extend({ sort: z.enum(sortable).optional(), ...filters }).strict();

export const page = <T extends z.ZodType>(row: T) =>
  z.object({ rows: z.array(row), total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });
export type Page<T> = { rows: T[]; total: number; page: number; pageSize: number };
