import { z } from 'zod';
import { email, limits, loginBody, password, phone, registerBody } from '@iot/contracts';
import type { TFunction } from 'i18next';

/** Login as the server checks it, plus spec §5: the agreement must be accepted before sending. */
export const loginForm = loginBody.extend({ agreement: z.literal(true) });

/** Registration exactly as the server checks it; the form adds only the password confirmation. */
export const registerForm = registerBody;

export const changePasswordForm = z
  .object({ oldPassword: z.string().min(1), newPassword: password, confirmPassword: z.string().min(1) })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], message: 'mismatch' });

export const targetOf = (method: 'phone' | 'email') => (method === 'phone' ? phone : email);

/** The message of each field's rule (§5), in the user's language. */
export function registerRules(t: TFunction): Record<string, string> {
  return {
    tenantName: t('validation.length', { field: t('register.tenantName'), min: limits.tenantName.min, max: limits.tenantName.max }),
    contactName: t('validation.maxLength', { field: t('register.contactName'), max: 64 }),
    company: t('validation.maxLength', { field: t('register.company'), max: 128 }),
    method: t('validation.method'),
    'method.empty': t('validation.method'),
    phone: t('validation.phone'),
    email: t('validation.email'),
    code: t('validation.code', { length: limits.verificationCodeLength }),
    password: t('validation.passwordLength', { min: limits.password.min, max: limits.password.max }),
    confirmPassword: t('validation.passwordMismatch'),
  };
}

export function loginRules(t: TFunction): Record<string, string> {
  return {
    'account.empty': t('validation.accountRequired'),
    'password.empty': t('validation.passwordRequired'),
    agreement: t('validation.agreement'),
  };
}

export function passwordRules(t: TFunction): Record<string, string> {
  return {
    newPassword: t('validation.passwordLength', { min: limits.password.min, max: limits.password.max }),
    confirmPassword: t('validation.passwordMismatch'),
  };
}
