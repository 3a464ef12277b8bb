import { describe, expect, it } from 'vitest';
import i18n from '../i18n/index.ts';
import { validate } from '../ui/form.tsx';
import { registerPayload } from './RegisterPage.tsx';
import { loginForm, loginRules, registerForm, registerRules } from './schemas.ts';

const t = i18n.getFixedT('en');
const good = {
  tenantName: 'acme',
  contactName: 'Li',
  company: '',
  method: 'phone' as const,
  target: '13800138000',
  code: '123456',
  password: 'secret1',
  confirmPassword: 'secret1',
};

describe('login form validation (spec §5)', () => {
  it('requires account and password and the agreement before sending', () => {
    const sut = validate(loginForm, { account: '', password: '', agreement: false }, t, loginRules(t));
    expect(sut).toEqual({
      ok: false,
      errors: {
        account: 'Enter your account or email',
        password: 'Enter your password',
        agreement: 'Please read and accept the user agreement',
      },
    });
  });
  it('passes a complete login', () => {
    expect(validate(loginForm, { account: 'admin', password: 'x', agreement: true }, t, loginRules(t)).ok).toBe(true);
  });
});

describe('registration form validation (spec §5)', () => {
  const check = (values: Partial<typeof good>) => validate(registerForm, registerPayload({ ...good, ...values }), t, registerRules(t));
  it('accepts a complete phone registration', () => expect(check({}).ok).toBe(true));
  it.each([
    [{ tenantName: 'ab' }, 'tenantName', 'Tenant name must be 3-64 characters'],
    [{ tenantName: 'a'.repeat(65) }, 'tenantName', 'Tenant name must be 3-64 characters'],
    [{ target: '12345' }, 'phone', 'Enter a valid mobile number'],
    [{ method: 'email' as never, target: 'not-mail' }, 'email', 'Enter a valid email address'],
    [{ code: '12345' }, 'code', 'The code is 6 digits'],
    [{ code: '12a456' }, 'code', 'The code is 6 digits'],
    [{ password: '12345', confirmPassword: '12345' }, 'password', 'The password must be 6-16 characters'],
    [{ password: '12345678901234567', confirmPassword: '12345678901234567' }, 'password', 'The password must be 6-16 characters'],
    [{ contactName: '' }, 'contactName', 'This field is required'],
  ])('%o is refused on %s', (values, field, message) => {
    const sut = check(values);
    expect(sut.ok).toBe(false);
    if (!sut.ok) expect(sut.errors[field]).toBe(message);
  });
});
