import { z } from 'zod';
import { limits } from '../constants.ts';
import { password } from '../auth/auth.ts';

export const registerMethods = ['phone', 'email'] as const;
export type RegisterMethod = (typeof registerMethods)[number];
export const tenantStatuses = ['underReview', 'approved', 'rejected', 'stopped'] as const;
export type TenantStatus = (typeof tenantStatuses)[number];

/** Mainland mobile numbers, optionally with +86. */
export const phone = z.string().regex(/^(\+?86)?1[3-9]\d{9}$/, 'phone');
export const email = z.string().email().max(128);
export const verificationCode = z.string().regex(/^\d{6}$/, 'code');
export const tenantName = z.string().trim().min(limits.tenantName.min).max(limits.tenantName.max);

export const sendCodeBody = z
  .object({ method: z.enum(registerMethods), target: z.string().trim().min(1).max(128) })
  .strict()
  .superRefine((v, ctx) => {
    const ok = v.method === 'phone' ? phone.safeParse(v.target).success : email.safeParse(v.target).success;
    if (!ok) ctx.addIssue({ code: 'custom', path: ['target'], message: v.method });
  });
export type SendCodeBody = z.infer<typeof sendCodeBody>;

export const registerBody = z
  .object({
    tenantName,
    contactName: z.string().trim().min(1).max(64),
    company: z.string().trim().max(128).default(''),
    method: z.enum(registerMethods),
    phone: phone.optional(),
    email: email.optional(),
    code: verificationCode,
    password,
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.method === 'phone' && !v.phone) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'required' });
    if (v.method === 'email' && !v.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'required' });
  });
export type RegisterBody = z.infer<typeof registerBody>;

export const auditBody = z.object({ id: z.string().min(1).max(64), reason: z.string().trim().max(256).optional() }).strict();
export type AuditBody = z.infer<typeof auditBody>;

export const tenantRow = z.object({
  id: z.string(),
  name: z.string(),
  contactName: z.string(),
  company: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  status: z.enum(tenantStatuses),
  registerMethod: z.enum(registerMethods),
  applyTime: z.string(),
  auditTime: z.string().nullable(),
  rejectReason: z.string().nullable(),
});
export type TenantRow = z.infer<typeof tenantRow>;

export const tenantListQuery = z
  .object({
    status: z.enum(tenantStatuses).optional(),
    name: z.string().trim().max(64).optional(),
  })
  .strict();
