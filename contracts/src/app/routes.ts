import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import { perm } from '../identity/permissions.ts';
import {
  appCreateBody,
  appCredentials,
  appListQuery,
  appRow,
  appSortable,
  appToken,
  appTokenBody,
  appUpdateBody,
} from '../identity/app.ts';

const idResult = z.object({ id: z.string() });
const tag = 'app';

/** Apps and their keys (spec §3 App, §6 sharing, §7 `app` paths): key and secret shown once, secret stored as a hash. */
export const appRoutes = {
  'app.create': route({
    method: 'POST',
    path: '/api/auth/app',
    permission: perm.appAdd,
    tag,
    summary: 'Create an app: its key and secret are shown once',
    body: appCreateBody,
    response: appCredentials,
    reads: ['apps'],
    errors: ['SCOPE_EXCEEDED', 'APP_NAME_TAKEN'],
  }),
  'app.update': route({
    method: 'PUT',
    path: '/api/auth/app',
    permission: perm.appEdit,
    tag,
    summary: 'Edit an app',
    body: appUpdateBody,
    response: idResult,
    reads: ['apps'],
    errors: ['NOT_FOUND', 'SCOPE_EXCEEDED', 'APP_NAME_TAKEN'],
  }),
  'app.rotateSecret': route({
    method: 'POST',
    path: '/api/auth/app/getSecret',
    permission: perm.appSecret,
    tag,
    summary: 'Issue a new secret (shown once); the old one and its tokens end',
    body: idBody,
    response: appCredentials,
    reads: ['apps'],
    errors: ['NOT_FOUND'],
  }),
  'app.delete': route({
    method: 'DELETE',
    path: '/api/auth/app',
    permission: perm.appDelete,
    tag,
    summary: 'Delete an app',
    query: idBody,
    response: idResult,
    reads: ['apps'],
    errors: ['NOT_FOUND'],
  }),
  'app.token': route({
    method: 'POST',
    path: '/api/auth/app/token',
    permission: 'public',
    tag,
    summary: "OAuth client credentials: a token carrying exactly the app's scope",
    body: appTokenBody,
    response: appToken,
    reads: ['apps', 'tenants'],
    errors: ['APP_AUTH_FAILED', 'ACCOUNT_STOPPED', 'TENANT_STOPPED'],
  }),
  'app.api': route({
    method: 'GET',
    path: '/api/auth/appApi',
    permission: perm.appList,
    tag,
    summary: "The API an app's key may call: the routes of the table whose permission is in the app's scope",
    query: idBody,
    response: z.array(z.object({ method: z.string(), path: z.string(), permission: z.string(), summary: z.string(), tag: z.string() })),
    reads: ['apps'],
    errors: ['NOT_FOUND'],
  }),
  'app.openApi': route({
    method: 'GET',
    path: '/api/auth/openApi',
    permission: perm.appList,
    tag,
    summary: "An OpenAPI 3.1 document of exactly the routes an app's key may call, for the app's developers",
    query: idBody,
    produces: 'application/json',
    response: z.string().describe('OpenAPI 3.1, JSON'),
    reads: ['apps'],
    errors: ['NOT_FOUND'],
  }),
  'app.list': route({
    method: 'GET',
    path: '/api/auth/app',
    permission: perm.appList,
    tag,
    summary: 'Apps the caller sees: their own, shared with their organisation, shared tenant-wide',
    query: listQuery(appSortable, appListQuery.shape),
    response: page(appRow),
    reads: ['apps', 'users', 'groups'],
  }),
};
export type AppRoutes = typeof appRoutes;
