import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Theme } from '@radix-ui/themes';
import { vi } from 'vitest';
import type { CurrentUser } from '@iot/contracts';
import { sessionStore } from '../auth/useSession.ts';
import { setLang } from '../i18n/index.ts';
import { ConfirmHost, NoticeHost } from '../ui/feedback.tsx';

// What Radix needs from a browser and jsdom lacks.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
Element.prototype.hasPointerCapture ??= () => false;
Element.prototype.releasePointerCapture ??= () => {};
Element.prototype.scrollIntoView ??= () => {};

export type Answer = { status?: number; body: unknown };
/** One answer per `METHOD path` (query string ignored); the calls made are kept in order. */
export function stubServer(routes: Record<string, Answer | ((body: unknown) => Answer)>) {
  const calls: Array<{ method: string; path: string; url: string; body: unknown }> = [];
  const fetch = vi.fn(async (input: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const path = input.split('?')[0]!;
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    calls.push({ method, path, url: input, body });
    const route = routes[`${method} ${path}`];
    const answer =
      typeof route === 'function'
        ? route(body)
        : (route ?? { status: 404, body: { code: 404, msg: 'not found', data: { error: 'NOT_FOUND' } } });
    return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetch);
  return calls;
}

/** The envelope of a successful answer. */
export const ok = (data: unknown): Answer => ({ body: { code: 200, msg: 'ok', data } });
/** The envelope of a refused answer, as the server sends it. */
export const refused = (status: number, error: string, msg: string): Answer => ({ status, body: { code: status, msg, data: { error } } });
export const emptyPage = ok({ rows: [], total: 0, page: 1, pageSize: 20 });

export const admin: CurrentUser = {
  id: 'u1',
  username: 'boss',
  tenantId: 't1',
  email: null,
  permissions: ['*'],
  isSystemAdmin: false,
  homePage: null,
};
/** The platform's own administrator: also holds the `platform:` permissions (menus, tenant audit). */
export const systemAdmin: CurrentUser = { ...admin, isSystemAdmin: true };

/** Renders a screen as the app does (theme, query client, a data router, notices and confirms), in English. */
export function renderScreen(
  element: ReactNode,
  { path = '/', loggedIn = true, as = admin }: { path?: string; loggedIn?: boolean; as?: CurrentUser } = {},
) {
  setLang('en');
  if (loggedIn) sessionStore.login('token', as);
  else sessionStore.clear();
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter([{ path: '*', element }], { initialEntries: [path] });
  return render(
    <QueryClientProvider client={queryClient}>
      <Theme>
        <RouterProvider router={router} />
        <NoticeHost />
        <ConfirmHost />
      </Theme>
    </QueryClientProvider>,
  );
}
