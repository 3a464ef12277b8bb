import { z } from 'zod';
import { enabledStatuses, entityId as id, optionalText } from './common.ts';

export const appTypes = ['web', 'mobile', 'server', 'device'] as const;
export type AppType = (typeof appTypes)[number];
/**
 * Spec §6: apps are shared inside the organisation (the owner's group subtree); a wider, tenant-wide
 * share is chosen explicitly; `private` keeps it to its owner.
 */
export const appSharings = ['private', 'organisation', 'global'] as const;
export type AppSharing = (typeof appSharings)[number];

const appFields = {
  type: z.enum(appTypes),
  name: z.string().trim().min(1).max(64),
  /** OAuth scope: the permissions an app token carries; at most the creator's own. */
  scope: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[\w-]+:[\w-]+(:[\w-]+)?$/, 'area:thing:action'),
    )
    .max(200),
  sharing: z.enum(appSharings),
  remark: optionalText(256),
};
export const appCreateBody = z.object(appFields).strict();
export type AppCreateBody = z.infer<typeof appCreateBody>;
export const appUpdateBody = z.object({ id, ...appFields, status: z.enum(enabledStatuses) }).strict();
export type AppUpdateBody = z.infer<typeof appUpdateBody>;

export const appRow = z.object({
  id: z.string(),
  type: z.enum(appTypes),
  name: z.string(),
  appKey: z.string(),
  ownerId: z.string(),
  ownerName: z.string().nullable(),
  scope: z.array(z.string()),
  sharing: z.enum(appSharings),
  status: z.enum(enabledStatuses),
  remark: z.string().nullable(),
  createdAt: z.string(),
});
export type AppRow = z.infer<typeof appRow>;
/** The only answer that carries the secret: shown once, stored only as its argon2 hash. */
export const appCredentials = z.object({ id: z.string(), appKey: z.string(), appSecret: z.string() });
export const appListQuery = z.object({ name: z.string().trim().max(64).optional(), type: z.enum(appTypes).optional() }).strict();
export const appSortable = ['createdAt', 'name'] as const;
export const appTokenBody = z.object({ appKey: z.string().min(1).max(64), appSecret: z.string().min(1).max(128) }).strict();
export const appToken = z.object({ token: z.string(), expiresIn: z.number().int(), scope: z.array(z.string()) });
