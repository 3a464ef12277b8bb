// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LoginPage } from './LoginPage.tsx';
import { RegisterPage } from './RegisterPage.tsx';
import { ok, refused, renderScreen, stubServer } from '../test/render.tsx';

afterEach(() => {
  // The register page keeps its draft in sessionStorage: each test starts with an empty form.
  sessionStorage.clear();
  cleanup();
  localStorage.clear();
});

const input = (name: string) => document.querySelector<HTMLInputElement>(`input[name=${name}]`)!;
const alerts = () => screen.queryAllByRole('alert').map((a) => a.textContent);

describe('login form (spec §5)', () => {
  it('asks for the account, the password and the agreement before sending anything', async () => {
    const calls = stubServer({});
    const user = userEvent.setup();
    renderScreen(<LoginPage />, { loggedIn: false });
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(alerts()).toEqual(['Enter your account or email', 'Enter your password', 'Please read and accept the user agreement']);
    expect(calls.filter((c) => c.path === '/api/auth/login')).toEqual([]);
  });

  it('with the agreement unticked, a complete form is still not sent', async () => {
    const calls = stubServer({});
    const user = userEvent.setup();
    renderScreen(<LoginPage />, { loggedIn: false });
    await user.type(input('account'), 'admin');
    await user.type(input('password'), 'admin123');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(alerts()).toEqual(['Please read and accept the user agreement']);
    expect(calls.filter((c) => c.path === '/api/auth/login')).toEqual([]);
  });

  it("shows the server's 'Username or password incorrect'", async () => {
    const calls = stubServer({ 'POST /api/auth/login': refused(401, 'BAD_CREDENTIALS', 'Username or password incorrect') });
    const user = userEvent.setup();
    renderScreen(<LoginPage />, { loggedIn: false });
    await user.type(input('account'), 'admin');
    await user.type(input('password'), 'wrong');
    await user.click(screen.getByTestId('agreement'));
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByTestId('login-error')).toHaveProperty('textContent', 'Username or password incorrect');
    expect(calls.find((c) => c.path === '/api/auth/login')?.body).toEqual({ account: 'admin', password: 'wrong', agreement: true });
  });
});

describe('registration form (spec §5)', () => {
  async function fill(values: Record<string, string>) {
    const user = userEvent.setup();
    for (const [name, value] of Object.entries(values)) {
      await user.clear(input(name));
      if (value) await user.type(input(name), value);
    }
    await user.click(screen.getByRole('button', { name: 'Register' }));
    return user;
  }
  const good = {
    tenantName: 'acme',
    contactName: 'Li Lei',
    target: '13800138000',
    code: '123456',
    password: 'secret1',
    confirmPassword: 'secret1',
  };

  it.each([
    [{ tenantName: 'ab' }, 'Tenant name must be 3-64 characters'],
    [{ tenantName: 'a'.repeat(65) }, 'Tenant name must be 3-64 characters'],
    [{ target: '12345' }, 'Enter a valid mobile number'],
    [{ code: '12345' }, 'The code is 6 digits'],
    [{ code: '12a456' }, 'The code is 6 digits'],
    [{ password: '12345', confirmPassword: '12345' }, 'The password must be 6-16 characters'],
    [{ password: '12345678901234567', confirmPassword: '12345678901234567' }, 'The password must be 6-16 characters'],
    [{ confirmPassword: 'other12' }, 'The two passwords do not match'],
  ])('%o shows "%s" and sends nothing', async (values, message) => {
    const calls = stubServer({});
    renderScreen(<RegisterPage />, { loggedIn: false });
    await fill({ ...good, ...values });
    expect(alerts()).toEqual([message]);
    expect(calls.filter((c) => c.path === '/api/auth/register')).toEqual([]);
  });

  it('an empty form names every required field', async () => {
    stubServer({});
    renderScreen(<RegisterPage />, { loggedIn: false });
    await fill({});
    const required = [...document.querySelectorAll('[data-invalid] input')].map((i) => i.getAttribute('name'));
    expect(required).toEqual(['tenantName', 'contactName', 'target', 'code', 'password']);
    expect(alerts()).toEqual(Array(5).fill('This field is required'));
  });

  it('by email, the email is checked instead of the phone', async () => {
    stubServer({});
    const user = userEvent.setup();
    renderScreen(<RegisterPage />, { loggedIn: false });
    await user.click(screen.getByRole('radio', { name: 'Email' }));
    expect(screen.getByText('Email', { selector: '.field-label' })).toBeTruthy();
    await fill({ ...good, target: 'not-mail' });
    expect(alerts()).toEqual(['Enter a valid email address']);
  });

  it('a complete form is sent with the chosen method', async () => {
    const calls = stubServer({ 'POST /api/auth/register': ok({ id: 'r1' }) });
    renderScreen(<RegisterPage />, { loggedIn: false });
    await fill(good);
    expect(await screen.findByTestId('register-done')).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/auth/register')?.body).toMatchObject({
      tenantName: 'acme',
      method: 'phone',
      phone: '13800138000',
      code: '123456',
    });
  });

  it('sending a code checks the phone first, then counts the seconds down before a resend', async () => {
    const calls = stubServer({ 'POST /api/auth/register/code': ok({ resendAfter: 60 }) });
    const user = userEvent.setup();
    renderScreen(<RegisterPage />, { loggedIn: false });
    await user.type(input('target'), '123');
    await user.click(screen.getByTestId('send-code'));
    expect(alerts()).toEqual(['Enter a valid mobile number']);
    expect(calls.filter((c) => c.path === '/api/auth/register/code')).toEqual([]);

    await user.clear(input('target'));
    await user.type(input('target'), '13800138000');
    await user.click(screen.getByTestId('send-code'));
    await waitFor(() => expect(screen.getByTestId('send-code').textContent).toBe('Resend in 60 s'));
    expect(screen.getByTestId('send-code')).toHaveProperty('disabled', true);
    await waitFor(() => expect(screen.getByTestId('send-code').textContent).toBe('Resend in 59 s'), { timeout: 2500 });
    expect(calls.find((c) => c.path === '/api/auth/register/code')?.body).toEqual({ method: 'phone', target: '13800138000' });
  });
});
