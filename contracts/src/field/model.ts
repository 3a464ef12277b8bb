import { z } from 'zod';
import { groupTypes } from '../constants.ts';
import { entityId } from '../identity/common.ts';

/** The group types that are sites (spec §9): a field configuration belongs to one of these. */
export const siteGroupTypes = ['site', 'powerStation', 'project'] as const satisfies readonly (typeof groupTypes)[number][];
export const isSiteGroupType = (type: string | null | undefined): boolean => (siteGroupTypes as readonly string[]).includes(type ?? '');

/** What a custom field holds: the form shows a text box, a number box or a date picker. */
export const fieldTypes = ['text', 'number', 'date'] as const;
export type FieldType = (typeof fieldTypes)[number];

/** A custom field's key: a short identifier, stable once values are stored under it. */
export const fieldKey = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,31}$/, 'key: a letter, then letters, digits or _ (32 at most)');

/** A calendar day, `YYYY-MM-DD`, that exists. */
export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'date: YYYY-MM-DD')
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
  }, 'date: no such day');

/** A custom field a tenant defines for all its sites. */
export const fieldDefinition = z
  .object({
    key: fieldKey,
    labelZh: z.string().trim().min(1).max(32),
    labelEn: z.string().trim().min(1).max(64),
    type: z.enum(fieldTypes),
    required: z.boolean().default(false),
  })
  .strict();
export type FieldDefinition = z.output<typeof fieldDefinition>;

/** Someone to call about the site. */
export const siteContact = z
  .object({
    name: z.string().trim().min(1).max(32),
    phone: z
      .string()
      .trim()
      .max(32)
      .regex(/^[0-9+\-() ]*$/, 'phone: digits, spaces, + - ( )')
      .default(''),
    role: z.string().trim().max(32).default(''),
  })
  .strict();
export type SiteContact = z.output<typeof siteContact>;

/** A custom field's value: text and dates as strings, numbers as numbers; null clears it. */
export const customValue = z.union([z.string().trim().max(256), z.number().finite(), z.null()]);
export type CustomValue = z.output<typeof customValue>;

/** The on-site parameters operators maintain for a site. */
export const siteParameters = z
  .object({
    commissioningDate: calendarDate.nullish().transform((v) => v ?? null),
    /** Rated capacity in kW. */
    ratedCapacityKw: z
      .number()
      .finite()
      .min(0)
      .max(100_000_000)
      .nullish()
      .transform((v) => v ?? null),
    address: z.string().trim().max(256).default(''),
    contacts: z.array(siteContact).max(20).default([]),
    custom: z.record(fieldKey, customValue).default({}),
  })
  .strict();
export type SiteParameters = z.output<typeof siteParameters>;

export const siteConfigBody = siteParameters.safeExtend({ groupId: entityId });
export const siteQuery = z.object({ groupId: entityId }).strict();
export const fieldKeyQuery = z.object({ key: fieldKey }).strict();

/** A group of the tenant's tree as the site picker shows it: sites selectable, other groups only as branches. */
export const fieldSiteNode = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  type: z.enum(groupTypes).nullable(),
  isSite: z.boolean(),
  configured: z.boolean(),
});
export type FieldSiteNode = z.infer<typeof fieldSiteNode>;

export const siteConfigRow = z.object({
  commissioningDate: z.string().nullable(),
  ratedCapacityKw: z.number().nullable(),
  address: z.string(),
  contacts: z.array(z.object({ name: z.string(), phone: z.string(), role: z.string() })),
  custom: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  groupId: z.string(),
  name: z.string(),
  type: z.enum(groupTypes).nullable(),
  /** When the parameters were last saved; null when never. */
  updateTime: z.string().nullable(),
});
export type SiteConfigRow = z.infer<typeof siteConfigRow>;

export const fieldSiteDevice = z.object({
  id: z.string(),
  sn: z.string(),
  name: z.string(),
  productName: z.string().nullable(),
  groupName: z.string().nullable(),
  status: z.string(),
});

/** Whether a value fits a field's type (null always fits; required is checked apart). */
export function fieldValueFits(type: FieldType, value: CustomValue): boolean {
  if (value === null) return true;
  if (type === 'number') return typeof value === 'number';
  if (typeof value !== 'string') return false;
  return type === 'text' || calendarDate.safeParse(value).success;
}
