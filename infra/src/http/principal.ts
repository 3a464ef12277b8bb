import type { FastifyRequest } from 'fastify';
import type { Principal, RoutePermission } from '@iot/contracts/http/principal.ts';

export { hasPermission, type Principal, type RoutePermission } from '@iot/contracts/http/principal.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: RoutePermission;
  }
  interface FastifyRequest {
    principal: Principal | null;
    lang: 'zh' | 'en';
    /** The `stationId` of the request (query or header), before the route sees the query. */
    stationId: string | null;
  }
}

/** The principal of a route that declared a permission: present by construction. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reached without a principal: check its permission declaration');
  return request.principal;
}
