// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
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
    expect(modules.map((m) => m.textContent)).toEqual(['camera (1)', 'user (1)']);
    const row = screen.getByRole('row', { name: /system:user:list/ });
    expect(within(row).getByText('Reporting')).toBeTruthy();
    expect(row.textContent).toContain('Viewers');
    expect(screen.getByRole('row', { name: /operation:video:list/ }).textContent).toContain('None');
    await user.type(screen.getByPlaceholderText('Path, permission or summary'), 'camera');
    expect(screen.getAllByTestId('resource-module').map((m) => m.textContent)).toEqual(['camera (1)']);
    expect(screen.getByText('Interfaces: 1')).toBeTruthy();
  });
});
