import { z } from 'zod';
import { limits } from '../constants.ts';
import { password } from '../auth/auth.ts';
import { email, phone } from '../tenant/tenant.ts';
import { enabledStatuses, entityId as id, optionalText } from './common.ts';

export const sexes = ['male', 'female', 'unknown'] as const;
export type Sex = (typeof sexes)[number];
export const userStatuses = enabledStatuses;
export type UserStatus = (typeof userStatuses)[number];

export const username = z
  .string()
  .trim()
  .min(limits.username.min)
  .max(limits.username.max)
  .regex(/^[^\s@]+$/, 'no spaces or @');

/** Spec §5: username 3-64; sex, email, phone, role and status required. */
const userFields = {
  username,
  sex: z.enum(sexes),
  email,
  phone,
  roleIds: z.array(id).min(1).max(20),
  status: z.enum(userStatuses),
  position: optionalText(64),
  groupId: id.nullish().transform((v) => v ?? null),
  description: optionalText(256),
  homePage: optionalText(256),
};

export const userCreateBody = z.object({ ...userFields, password }).strict();
export type UserCreateBody = z.infer<typeof userCreateBody>;
export const userUpdateBody = z.object({ id, ...userFields }).strict();
export type UserUpdateBody = z.infer<typeof userUpdateBody>;

/** What a user may change of their own profile. */
export const profileBody = z
  .object({ sex: z.enum(sexes), email, phone, position: optionalText(64), description: optionalText(256), homePage: optionalText(256) })
  .strict();
export type ProfileBody = z.infer<typeof profileBody>;

export const userRow = z.object({
  id: z.string(),
  username: z.string(),
  sex: z.enum(sexes),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  position: z.string().nullable(),
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  roleIds: z.array(z.string()),
  roleNames: z.array(z.string()),
  status: z.enum(userStatuses),
  description: z.string().nullable(),
  homePage: z.string().nullable(),
  isTenantAdmin: z.boolean(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type UserRow = z.infer<typeof userRow>;

export const userListQuery = z
  .object({
    username: z.string().trim().max(64).optional(),
    status: z.enum(userStatuses).optional(),
    groupId: id.optional(),
    roleId: id.optional(),
    position: z.string().trim().max(64).optional(),
  })
  .strict();
export const userSortable = ['createdAt', 'username', 'status', 'position'] as const;

export const usernameCheckQuery = z.object({ username, id: id.optional() }).strict();
export const availability = z.object({ available: z.boolean() });

export const passwordChangeBody = z.object({ oldPassword: z.string().min(1).max(128), newPassword: password }).strict();
export type PasswordChangeBody = z.infer<typeof passwordChangeBody>;
export const passwordResetBody = z.object({ id, password }).strict();
export const passwordCheckBody = z.object({ password: z.string().min(1).max(128) }).strict();
export const userStatusBody = z.object({ id, status: z.enum(userStatuses) }).strict();
