import { z } from 'zod';
import { DomainError, routes, type AppRoutes, type AppRow } from '@iot/contracts';
import { rawAnswer, type RouteSpec } from '@iot/contracts/http/route.ts';
import type { RequestContext } from '@iot/contracts/http/handler.ts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { isRootUser } from '@iot/contracts/http/principal.ts';
import { appById, appsPage, type AppFilter, type AppRecord } from '@iot/projections/app/read.ts';
import { groupAncestry } from '@iot/projections/group/read.ts';
import { userByIdAnyTenant, userIdsInGroups, usernamesById } from '@iot/projections/user/read.ts';

const toAppRow = (a: AppRecord, owners: Map<string, string>): AppRow => ({
  id: a.id,
  type: a.type,
  name: a.name,
  appKey: a.appKey,
  ownerId: a.ownerId,
  ownerName: owners.get(a.ownerId) ?? null,
  scope: a.scope,
  sharing: a.sharing,
  status: a.status,
  remark: a.remark,
  createdAt: a.createdAt.toISOString(),
});

/** The routes an app's token may call: those whose permission its scope holds (never public or session-only ones). */
async function apiOf(ctx: RequestContext, id: string) {
  const app = await appById(ctx.ports.db, callerOf(ctx).tenantId, id);
  if (!app) throw new DomainError('NOT_FOUND');
  const scope = new Set(app.scope);
  return {
    name: app.name,
    routes: (Object.values(routes) as RouteSpec[]).filter((r) => typeof r.permission === 'string' && scope.has(r.permission)),
  };
}

const jsonSchema = (schema: unknown) => z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' });

export const appQueryHandlers: Pick<Handlers<AppRoutes>, 'app.list' | 'app.api' | 'app.openApi'> = {
  async 'app.api'({ query }, ctx) {
    return (await apiOf(ctx, query.id)).routes.map((r) => ({
      method: r.method,
      path: r.path,
      permission: r.permission as string,
      summary: r.summary,
      tag: r.tag,
    }));
  },

  async 'app.openApi'({ query }, ctx) {
    const api = await apiOf(ctx, query.id);
    const paths: Record<string, Record<string, unknown>> = {};
    for (const r of api.routes) {
      const parameters = r.query
        ? Object.entries((jsonSchema(r.query) as { properties?: Record<string, unknown>; required?: string[] }).properties ?? {}).map(
            ([name, schema]) => ({
              name,
              in: 'query',
              schema,
              required: ((jsonSchema(r.query) as { required?: string[] }).required ?? []).includes(name),
            }),
          )
        : [];
      paths[r.path] = {
        ...paths[r.path],
        [r.method.toLowerCase()]: {
          tags: [r.tag],
          summary: r.summary,
          security: [{ appToken: [] }],
          parameters,
          ...(r.body && !r.consumes
            ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(r.body) } } } }
            : {}),
          responses: {
            200: {
              description: 'Success: `{ code: 200, msg, data }`',
              content: {
                [r.produces ?? 'application/json']: {
                  schema: r.produces
                    ? { type: 'string' }
                    : { type: 'object', properties: { code: { type: 'integer' }, msg: { type: 'string' }, data: jsonSchema(r.response) } },
                },
              },
            },
            default: { description: 'An error in the envelope: `{ code, msg, data: null }` with a stable code' },
          },
        },
      };
    }
    const doc = {
      openapi: '3.1.0',
      info: {
        title: `${api.name}: device cloud API`,
        version: '2.0.12',
        description: 'The routes this app’s key may call. Get a token from POST /api/auth/app/token.',
      },
      components: { securitySchemes: { appToken: { type: 'apiKey', in: 'header', name: 'Authentication' } } },
      paths,
    };
    return rawAnswer('application/json', JSON.stringify(doc, null, 2), `openapi-${query.id}.json`);
  },

  /**
   * The apps a user sees (spec §6): their own; those shared with the organisation when the viewer's group
   * is in the owner's group subtree; those shared globally within the tenant; all of them for the tenant's root user.
   */
  async 'app.list'({ query: q }, ctx) {
    const { db } = ctx.ports;
    const caller = callerOf(ctx);
    const filter: AppFilter = { name: q.name, type: q.type };
    if (!isRootUser(caller)) {
      const me = await userByIdAnyTenant(db, caller.id);
      // The organisation of an app is its owner's group subtree: the viewer sees it when their group is in it.
      const ancestry = me?.groupId ? await groupAncestry(db, caller.tenantId, me.groupId) : [];
      filter.visibleTo = { viewerId: caller.id, organisation: await userIdsInGroups(db, caller.tenantId, ancestry) };
    }
    const page = await appsPage(db, caller.tenantId, filter, q);
    const owners = await usernamesById(db, [...new Set(page.rows.map((a) => a.ownerId))]);
    return { ...page, rows: page.rows.map((a) => toAppRow(a, owners)) };
  },
};
