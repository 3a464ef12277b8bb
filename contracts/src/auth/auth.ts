import { z } from 'zod';
import { limits } from '../constants.ts';

export const password = z.string().min(limits.password.min).max(limits.password.max);

export const loginBody = z
  .object({
    /** Account (username) or email. */
    account: z.string().trim().min(1).max(128),
    password: z.string().min(1).max(128),
    /** The user agreement checkbox of the login screen must be ticked. */
    agreement: z.boolean(),
  })
  .strict();
export type LoginBody = z.infer<typeof loginBody>;

export const currentUser = z.object({
  id: z.string(),
  tenantId: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  isSystemAdmin: z.boolean(),
  permissions: z.array(z.string()),
  homePage: z.string().nullable(),
});
export type CurrentUser = z.infer<typeof currentUser>;

export const loginResult = z.object({ token: z.string(), user: currentUser });
export type LoginResult = z.infer<typeof loginResult>;
