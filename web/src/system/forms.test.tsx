// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { emptyPage, ok, refused, renderScreen, stubServer, systemAdmin } from '../test/render.tsx';
import { MenusPage } from './MenusPage.tsx';
import { RolesPage } from './RolesPage.tsx';
import { SettingsPage } from './SettingsPage.tsx';
import { UsersPage } from './UsersPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const dialogInput = (name: string) =>
  within(screen.getByRole('dialog')).getByRole('textbox', { name: (_, el) => el.getAttribute('name') === name });
/** The error under each invalid field of the open dialog, by field label. */
function fieldErrors(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of screen.getByRole('dialog').querySelectorAll('[data-invalid]')) {
    const label = field.querySelector('.field-label')!.textContent!.replace('*', '');
    out[label] = field.querySelector('.field-error')!.textContent!;
  }
  return out;
}
async function openAdd(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('button', { name: 'Add' }));
  return screen.findByRole('dialog');
}
const save = (user: ReturnType<typeof userEvent.setup>) =>
  user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Save' }));

const role = { id: 'r1', name: 'Viewer', remark: null, menuIds: [], builtin: null, renamed: false, createdAt: '2026-01-01T00:00:00Z' };

describe('user form (spec §5)', () => {
  const server = () =>
    stubServer({
      'GET /api/auth/user': emptyPage,
      'GET /api/auth/role': ok({ rows: [role], total: 1, page: 1, pageSize: 500 }),
      'GET /api/auth/dept': ok([]),
    });

  it('needs username, password, sex, email, mobile and a role; status starts as enabled', async () => {
    const calls = server();
    const user = userEvent.setup();
    renderScreen(<UsersPage />);
    await openAdd(user);
    await save(user);
    expect(fieldErrors()).toEqual({
      Username: 'This field is required',
      'Initial password': 'This field is required',
      Sex: 'Please make a choice',
      Email: 'This field is required',
      Mobile: 'This field is required',
      Roles: 'Please make a choice',
    });
    expect(within(screen.getByRole('dialog')).getByRole('combobox', { name: 'status' }).textContent).toBe('Enabled');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it.each([
    ['ab', 'The username must be 3-64 characters, without spaces or @'],
    ['a'.repeat(65), 'The username must be 3-64 characters, without spaces or @'],
  ])('refuses the username %s', async (username, message) => {
    server();
    const user = userEvent.setup();
    renderScreen(<UsersPage />);
    await openAdd(user);
    await user.type(dialogInput('username'), username);
    await user.type(dialogInput('email'), 'nope');
    await user.type(dialogInput('phone'), '123');
    await save(user);
    expect(fieldErrors()).toMatchObject({ Username: message, Email: 'Enter a valid email address', Mobile: 'Enter a valid mobile number' });
  });

  it('sends a complete user', async () => {
    const user = userEvent.setup();
    const calls = stubServer({
      'GET /api/auth/user': emptyPage,
      'GET /api/auth/role': ok({ rows: [role], total: 1, page: 1, pageSize: 500 }),
      'GET /api/auth/dept': ok([]),
      'POST /api/auth/user': ok({ id: 'u2' }),
    });
    renderScreen(<UsersPage />);
    await openAdd(user);
    await user.type(dialogInput('username'), 'viewer1');
    await user.type(screen.getByRole('dialog').querySelector<HTMLInputElement>('input[name=password]')!, 'viewer123');
    await user.click(within(screen.getByRole('dialog')).getByRole('combobox', { name: 'sex' }));
    await user.click(await screen.findByRole('option', { name: 'Female' }));
    await user.type(dialogInput('email'), 'v@example.com');
    await user.type(dialogInput('phone'), '13900000001');
    await user.click(within(screen.getByTestId('user-roles')).getByRole('checkbox'));
    await save(user);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      username: 'viewer1',
      password: 'viewer123',
      sex: 'female',
      status: 'enabled',
      roleIds: ['r1'],
    });
  });
});

describe('role form (spec §5)', () => {
  it('needs a name', async () => {
    stubServer({ 'GET /api/auth/role': emptyPage, 'GET /api/auth/menu/list': ok([]) });
    const user = userEvent.setup();
    renderScreen(<RolesPage />);
    await openAdd(user);
    await save(user);
    expect(fieldErrors()).toEqual({ 'Role name': 'This field is required' });
  });

  it("shows 'Role already exists' on the name when the check finds it", async () => {
    const calls = stubServer({
      'GET /api/auth/role': emptyPage,
      'GET /api/auth/menu/list': ok([]),
      'GET /api/auth/role/check': ok({ available: false }),
    });
    const user = userEvent.setup();
    renderScreen(<RolesPage />);
    await openAdd(user);
    await user.type(dialogInput('name'), 'Viewer');
    await save(user);
    await waitFor(() => expect(fieldErrors()).toEqual({ 'Role name': 'Role already exists' }));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it("shows the server's 'Role already exists' on the name when another role took it meanwhile", async () => {
    stubServer({
      'GET /api/auth/role': emptyPage,
      'GET /api/auth/menu/list': ok([]),
      'GET /api/auth/role/check': ok({ available: true }),
      'POST /api/auth/role': refused(400, 'ROLE_EXISTS', 'Role already exists'),
    });
    const user = userEvent.setup();
    renderScreen(<RolesPage />);
    await openAdd(user);
    await user.type(dialogInput('name'), 'Viewer');
    await save(user);
    await waitFor(() => expect(fieldErrors()).toEqual({ 'Role name': 'Role already exists' }));
    expect(screen.getByRole('dialog')).toBeTruthy();
  });
});

describe('menu form (spec §5)', () => {
  it('needs a name of at most 10 characters and a path', async () => {
    const calls = stubServer({ 'GET /api/auth/menu/list': ok([]) });
    const user = userEvent.setup();
    renderScreen(<MenusPage />, { as: systemAdmin });
    await openAdd(user);
    await save(user);
    expect(fieldErrors()).toEqual({ 'Menu name': 'This field is required', Path: 'This field is required' });
    await user.type(dialogInput('name'), 'Elevenchars');
    await user.type(dialogInput('path'), '/x/y');
    await save(user);
    expect(fieldErrors()).toEqual({ 'Menu name': 'Menu name can be at most 10 characters' });
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});

describe('settings logo (spec §5)', () => {
  const png = (bytes: number) => {
    const data = new Uint8Array(bytes);
    data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    return new File([data], 'logo.png', { type: 'image/png' });
  };
  it.each([
    ['a picture over 2MB', png(2 * 1024 * 1024 + 1), 'The size of the uploaded picture cannot exceed 2MB!'],
    [
      'a JPEG',
      new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'logo.jpg', { type: 'image/jpeg' }),
      'Only PNG pictures can be uploaded',
    ],
    ['a file named .png that is not one', new File(['hello'], 'fake.png', { type: 'image/png' }), 'Only PNG pictures can be uploaded'],
  ])('refuses %s', async (_, file, message) => {
    const calls = stubServer({ 'GET /api/auth/settings': ok({ systemName: 'Device Cloud', hasLogo: false }) });
    const user = userEvent.setup({ applyAccept: false });
    renderScreen(<SettingsPage />);
    await user.upload(await screen.findByTestId('logo-input'), file);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(message));
    expect(screen.getByRole('status').textContent).toContain(message);
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
