import { tenantRoutes } from './tenant/routes.ts';
import { userRoutes } from './user/routes.ts';

/**
 * Every HTTP route of the platform, by name: the one source of paths, permissions and schemas for the
 * server, the web client, OpenAPI and the security walks.
 */
export const routes = {
  ...tenantRoutes,
  ...userRoutes,
};
export type Routes = typeof routes;
export type RouteName = keyof Routes;
