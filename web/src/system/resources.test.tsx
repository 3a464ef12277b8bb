// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { setLang } from '../i18n/index.ts';
import { ResourcesPage } from './ResourcesPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const resource = (module: string, name: string, path: string, permission: string, roles: string[], apps: string[]) => ({
  module,
  name,
  method: 'GET',
  path,
  summary: `${name} summary`,
  permission,
  roles: roles.map((r) => ({ id: r, name: r })),
  apps: apps.map((a) => ({ id: a, name: a })),
});

describe('the resources screen', () => {
  it('groups the interfaces by module with the roles and apps holding each, and narrows by keyword', async () => {
    stubServer({
      'GET /api/auth/resource': ok([
        resource('camera', 'camera.list', '/api/iot/camera', 'operation:video:list', ['Guards'], []),
        resource('user', 'user.list', '/api/auth/user/list', 'system:user:list', ['Viewers', 'Admins'], ['Reporting']),
      ]),
    });
    const user = userEvent.setup();
    renderScreen(<ResourcesPage />);
    const modules = await screen.findAllByTestId('resource-module');
    // Grouped under the screen each permission belongs to, named as the menu names it.
    expect(modules.map((m) => m.textContent)).toEqual(['Video surveillance (1)', 'Users (1)']);
    const row = screen.getByRole('row', { name: /system:user:list/ });
    expect(within(row).getByText('Reporting')).toBeTruthy();
    expect(row.textContent).toContain('Viewers');
    expect(screen.getByRole('row', { name: /operation:video:list/ }).textContent).toContain('None');
    await user.type(screen.getByPlaceholderText('Path, permission or summary'), 'camera');
    expect(screen.getAllByTestId('resource-module').map((m) => m.textContent)).toEqual(['Video surveillance (1)']);
    expect(screen.getByText('Interfaces: 1')).toBeTruthy();
  });

  it('speaks Chinese: screens, what each interface does and built-in roles by their Chinese names, no English summary', async () => {
    stubServer({
      'GET /api/auth/resource': ok([
        { ...resource('user', 'user.list', '/api/auth/user/list', 'system:user:list', [], []), roles: [{ id: 'r1', name: '审计员' }] },
      ]),
    });
    renderScreen(<ResourcesPage />);
    await act(() => setLang('zh'));
    await waitFor(() => expect(screen.getAllByTestId('resource-module').map((m) => m.textContent)).toEqual(['用户管理 (1)']));
    const row = screen.getByRole('row', { name: /system:user:list/ });
    expect(row.textContent).toContain('查询');
    expect(row.textContent).toContain('审计员');
    expect(row.textContent).not.toContain('summary');
  });

  it('names a built-in role in English on an English screen', async () => {
    stubServer({
      'GET /api/auth/resource': ok([
        { ...resource('user', 'user.list', '/api/auth/user/list', 'system:user:list', [], []), roles: [{ id: 'r1', name: '审计员' }] },
      ]),
    });
    renderScreen(<ResourcesPage />);
    const row = await screen.findByRole('row', { name: /system:user:list/ });
    expect(row.textContent).not.toMatch(/[\u4e00-\u9fff]/);
  });
});
