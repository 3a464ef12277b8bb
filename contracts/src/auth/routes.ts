import { z } from 'zod';
import { route } from '../http/route.ts';
import { currentUser, loginBody, loginResult } from './auth.ts';

const tag = 'auth';

/** Login, logout and the session's user (spec §7 `login`, `logout`, `user/currentUser`). */
export const authRoutes = {
  'auth.login': route({
    method: 'POST',
    path: '/api/auth/login',
    permission: 'public',
    tag,
    summary: 'Log in with account or email and password; sets the `token` cookie',
    body: loginBody,
    response: loginResult,
    reads: ['users', 'tenants', 'roles', 'menus'],
    errors: [
      'AGREEMENT_REQUIRED',
      'LOGIN_FAILED',
      'ACCOUNT_STOPPED',
      'TENANT_STOPPED',
      'REGISTRATION_UNDER_REVIEW',
      'REGISTRATION_REJECTED',
    ],
  }),
  'auth.logout': route({
    method: 'POST',
    path: '/api/auth/logout',
    permission: 'authenticated',
    tag,
    summary: 'End this session; clears the `token` cookie',
    response: z.null(),
    reads: [],
  }),
  'auth.currentUser': route({
    method: 'GET',
    path: '/api/auth/user/currentUser',
    permission: 'authenticated',
    tag,
    summary: 'The logged-in caller and their permissions',
    response: currentUser,
    reads: ['users'],
  }),
};
export type AuthRoutes = typeof authRoutes;
