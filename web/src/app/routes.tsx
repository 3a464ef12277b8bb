import { useEffect, type ComponentType } from 'react';
import { createBrowserRouter, Navigate, Outlet, useLocation } from 'react-router';
import type { CurrentUser } from '@iot/contracts';
import { api, setUnauthorizedHandler } from '../api/client.ts';
import { endpoints } from '../api/endpoints.ts';
import { can, session } from '../api/session.ts';
import { LoginPage } from '../auth/LoginPage.tsx';
import { RegisterPage } from '../auth/RegisterPage.tsx';
import { sessionStore, useSession } from '../auth/useSession.ts';
import { ComingSoon, NotFound } from '../home/ComingSoon.tsx';
import { HomePage } from '../home/HomePage.tsx';
import { Layout } from '../shell/Layout.tsx';
import { flatten, staticMenu } from '../shell/menu.ts';
import { useMenu } from '../shell/useMenu.ts';
import { AppsPage } from '../system/AppsPage.tsx';
import { DictionariesPage } from '../system/DictionariesPage.tsx';
import { GroupsPage } from '../system/GroupsPage.tsx';
import { MenusPage } from '../system/MenusPage.tsx';
import { OperationLogPage } from '../system/OperationLogPage.tsx';
import { RolesPage } from '../system/RolesPage.tsx';
import { SettingsPage } from '../system/SettingsPage.tsx';
import { TenantAuditPage } from '../system/TenantAuditPage.tsx';
import { UsersPage } from '../system/UsersPage.tsx';

/** The screens built so far; every other menu path shows the "later release" page. */
export const screens: Record<string, ComponentType> = {
  '/system/tenant': TenantAuditPage,
  '/system/user': UsersPage,
  '/system/dept': GroupsPage,
  '/system/role': RolesPage,
  '/system/menu': MenusPage,
  '/system/app': AppsPage,
  '/system/dict': DictionariesPage,
  '/system/settings': SettingsPage,
  '/system/log': OperationLogPage,
};

function RequireAuth() {
  const user = useSession();
  const location = useLocation();
  useEffect(() => {
    if (!session.token()) return;
    // Permissions may have changed since login: refresh them once per visit.
    api
      .get<CurrentUser>(endpoints.currentUser)
      .then((fresh) => sessionStore.update(fresh))
      .catch(() => undefined);
  }, []);
  if (!user || !session.token()) return <Navigate to={`/login?redirect=${encodeURIComponent(location.pathname)}`} replace />;
  return <Outlet />;
}

/**
 * Any path below the shell: a built screen (if the user holds its permission), the "later release" page
 * for an entry of the menu, or not found.
 */
function Screen() {
  const user = useSession();
  const location = useLocation();
  const menu = useMenu();
  const path = location.pathname;
  const Built = screens[path];
  const node = flatten(staticMenu).find((n) => n.path === path);
  if (Built) return can(user, node?.permission) ? <Built /> : <NotFound />;
  const inMenu = flatten(menu.data ?? []).some((n) => n.path === path) || (node !== undefined && can(user, node.permission));
  if (menu.isLoading) return null;
  return inMenu ? <ComingSoon /> : <NotFound />;
}

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/register', element: <RegisterPage /> },
  {
    element: <RequireAuth />,
    children: [
      {
        element: <Layout />,
        children: [
          { path: '/', element: <Navigate to="/index" replace /> },
          { path: '/index', element: <HomePage /> },
          { path: '/home/index', element: <Navigate to="/index" replace /> },
          { path: '*', element: <Screen /> },
        ],
      },
    ],
  },
]);

// Spec §8: HTTP 401 or 403 sends the browser to login.
setUnauthorizedHandler(() => {
  sessionStore.clear();
  const here = window.location.pathname;
  if (here !== '/login') void router.navigate(`/login?redirect=${encodeURIComponent(here)}`, { replace: true });
});
