// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import type { CurrentUser } from '@iot/contracts';
import { admin, emptyPage, renderScreen, stubServer } from '../test/render.tsx';
import { UsersPage } from './UsersPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe('lookups a screen shows beside its rows', () => {
  it('asks an operator (who may list users, not roles or groups) for no roles and no groups: no background 403', async () => {
    const operator = { ...admin, permissions: ['system:user:list'] } as CurrentUser;
    const calls = stubServer({ 'GET /api/auth/user': emptyPage });
    renderScreen(<UsersPage />, { as: operator });
    await screen.findByText('No data');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /api/auth/user']);
  });
});
