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

/** A NUL, or half of a UTF-16 surrogate pair: no text anyone typed, and PostgreSQL refuses both. */
// eslint-disable-next-line no-control-regex -- the NUL is what it looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Whether a text holds a character no store keeps (a NUL, an unpaired surrogate). */
export const unstorable = (text: string): boolean => UNSTORABLE.test(text);

/**
 * An instant in ISO 8601 with its offset, as PostgreSQL and ClickHouse take it: offsets within ±15:59 and no year 0.
 * A refusal names the catalogue's TIME_INVALID, whose message the envelope gives in the caller's language.
 */
export const instant = z.iso
  .datetime({ offset: true, error: 'TIME_INVALID' })
  .refine((v) => Number(/[+-](\d{2}):?\d{2}$/.exec(v)?.[1] ?? 0) <= 15 && !v.startsWith('0000'), { error: 'TIME_INVALID' });

/**
 * An IANA time zone this runtime knows (`Asia/Shanghai`), in its canonical spelling (ClickHouse takes no other); a
 * refusal names TIME_ZONE_UNKNOWN. For what a client sends: an answer's schema takes the stored text (`z.string()`).
 */
export const timeZone = z
  .string()
  .max(64)
  .transform((tz, ctx) => {
    try {
      // A name, not an offset (`+08:00`), which Intl takes and ClickHouse does not.
      if (!/^[A-Za-z]/.test(tz)) throw new RangeError(tz);
      return new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'TIME_ZONE_UNKNOWN' });
      return z.NEVER;
    }
  });
