import { routes as routeTable } from '@iot/contracts';
import { brokerHookRoutes } from '@iot/contracts/telemetry/mqtt-hooks.ts';
import type { RoutePermission } from '@iot/contracts/http/principal.ts';
import { uniquePhone } from '../harness/phone.ts';

/** Builds a request for every /api route of the OpenAPI document, filling ids with another tenant's real ids. */

export interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
}

export interface Route {
  method: string;
  url: string;
  operation: OpenApiOperation;
}

export function routesOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Route[] {
  const routes: Route[] = [];
  for (const [url, methods] of Object.entries(doc.paths)) {
    if (!url.startsWith('/api/')) continue;
    for (const [method, operation] of Object.entries(methods)) routes.push({ method: method.toUpperCase(), url, operation });
  }
  return routes;
}

const declared = new Map<string, RoutePermission>(
  [...Object.values(routeTable), ...Object.values(brokerHookRoutes)].map((spec) => [`${spec.method} ${spec.path}`, spec.permission]),
);

/**
 * The permission the route table declares for a route ('public', 'authenticated' or a permission string), read
 * from the table itself; undefined for a route the table does not declare, which no walk may pass over.
 */
export const declaredPermission = (route: Pick<Route, 'method' | 'url'>): RoutePermission | undefined =>
  declared.get(`${route.method} ${route.url}`);

/** Picks a value for a field by its name: ids become the victim tenant's ids of the kind the route is about. */
export type IdPicker = (field: string, url: string) => string | undefined;

export function sample(schema: JsonSchema | undefined, field: string, url: string, pick: IdPicker): unknown {
  if (!schema) return pick(field, url) ?? 'x';
  const option = schema.anyOf ?? schema.oneOf;
  if (option) return sample(option.find((o) => o.type !== 'null') ?? option[0], field, url, pick);
  if (schema.allOf?.length) return sample(Object.assign({}, ...schema.allOf), field, url, pick);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(schema.properties ?? {})) out[key] = sample(prop, key, url, pick);
      return out;
    }
    case 'array':
      return [sample(schema.items, field.replace(/s$/, ''), url, pick)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default: {
      const picked = pick(field, url);
      if (picked !== undefined) return picked;
      if (schema.format === 'email' || /email/i.test(field)) return 'walker@example.com';
      if (/phone/i.test(field)) return uniquePhone();
      if (/password|secret/i.test(field)) return 'Walk#pass1';
      if (/permission|scope/i.test(field)) return 'system:user:list';
      if (schema.format === 'date-time') return new Date().toISOString();
      const length = Math.max(schema.minLength ?? 1, 4);
      return 'w'.repeat(Math.min(length, schema.maxLength ?? length));
    }
  }
}

/** The query (as strings) and JSON body of one route. */
export function requestOf(route: Route, pick: IdPicker): { query: Record<string, string>; body: unknown } {
  const query: Record<string, string> = {};
  for (const p of route.operation.parameters ?? []) {
    if (p.in !== 'query') continue;
    const value = sample(p.schema, p.name, route.url, pick);
    query[p.name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  const schema = route.operation.requestBody?.content?.['application/json']?.schema;
  const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : schema ? sample(schema, 'body', route.url, pick) : {};
  return { query, body };
}

/** The operations of the OpenAPI document by operationId: the route table's names. */
export function operationsOf(doc: { paths: Record<string, Record<string, OpenApiOperation & { operationId?: string }>> }) {
  const byName = new Map<string, OpenApiOperation>();
  for (const methods of Object.values(doc.paths))
    for (const operation of Object.values(methods)) if (operation.operationId) byName.set(operation.operationId, operation);
  return byName;
}

/** A query string of `values`, each encoded unless listed in `raw` (sent as it is: `%ED%A0%80`, half a surrogate pair). */
export function queryString(values: Record<string, string>, raw: ReadonlySet<string> = new Set()): string {
  return Object.entries(values)
    .map(([key, value]) => `${encodeURIComponent(key)}=${raw.has(key) ? value : encodeURIComponent(value)}`)
    .join('&');
}

/** JSON text nested `depth` levels deep, objects or arrays: what no body of the table needs. */
export function nestedJson(depth: number, kind: 'object' | 'array'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}
