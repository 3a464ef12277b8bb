import { z } from 'zod';
import { DomainError, routes, type AppRoutes, type AppRow, type appSortable } from '@iot/contracts';
import { rawAnswer, type RouteSpec } from '@iot/contracts/http/route.ts';
import type { RequestContext } from '@iot/contracts/http/handler.ts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { isRootUser } from '@iot/contracts/http/principal.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

const toAppRow = (r: Record<string, unknown>): AppRow => ({
  id: r.id as string,
  type: r.type as AppRow['type'],
  name: r.name as string,
  appKey: r.app_key as string,
  ownerId: r.owner_id as string,
  ownerName: (r.owner_name as string | null) ?? null,
  scope: (r.scope as string[]) ?? [],
  sharing: r.sharing as AppRow['sharing'],
  status: r.status as AppRow['status'],
  remark: (r.remark as string | null) ?? null,
  createdAt: iso(r.created_at),
});

/**
 * The apps a user sees (spec §6): their own; those shared with the organisation when the viewer's group
 * is in the owner's group subtree; those shared globally within the tenant; all of them for the tenant's root user.
 */
/** The routes an app's token may call: those whose permission its scope holds (never public or session-only ones). */
async function apiOf(ctx: RequestContext, id: string) {
  const row = (
    await ctx.ports.db.query<{ scope: string[]; name: string }>('select scope, name from rm_apps where id = $1 and tenant_id = $2', [
      id,
      callerOf(ctx).tenantId,
    ])
  ).rows[0];
  if (!row) throw new DomainError('NOT_FOUND');
  const scope = new Set(row.scope ?? []);
  return {
    name: row.name,
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

  async 'app.list'({ query: q }, ctx) {
    const { db, lookups } = ctx.ports;
    const caller = callerOf(ctx);
    const spec: ListSpec = {
      select: 'a.*, u.username as owner_name',
      from: 'rm_apps a left join rm_users u on u.id = a.owner_id',
      where: ['a.tenant_id = $1'],
      params: [caller.tenantId],
      sortable: { createdAt: 'a.created_at', name: 'lower(a.name)' } satisfies Record<(typeof appSortable)[number], string>,
      defaultSort: 'a.created_at',
    };
    if (!isRootUser(caller)) {
      const me = (await db.query<{ group_id: string | null }>('select group_id from rm_users where id = $1', [caller.id])).rows[0];
      // The organisation of an app is its owner's group subtree: the viewer sees it when their group is in it.
      const organisation = me?.group_id ? await lookups.groupAncestry(caller.tenantId, me.group_id) : [];
      spec.where.push(
        `(a.owner_id = ${param(spec.params, caller.id)} or a.sharing = 'global' or (a.sharing = 'organisation' and u.group_id = any(${param(spec.params, organisation)})))`,
      );
    }
    if (q.name) spec.where.push(`a.name ilike ${param(spec.params, `%${q.name}%`)}`);
    if (q.type) spec.where.push(`a.type = ${param(spec.params, q.type)}`);
    return pageOf(db, q, spec, toAppRow);
  },
};
