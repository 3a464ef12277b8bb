import type { Routes } from '@iot/contracts';
import { queryText, type RouteSpec } from '@iot/contracts/http/route.ts';
import type { App } from '@iot/infra/http/app.ts';
import { specOf, type Answer, type RouteArgs, type RouteName } from './api.ts';

/**
 * A route of the table by name, injected into a platform's Fastify app that a test started itself (not through
 * `startTestPlatform`): the same typed arguments and answer as `sut.call`.
 */
export async function injectRoute<N extends RouteName>(app: App, name: N, args: RouteArgs<Routes[N]> = {}): Promise<Answer<Routes[N]>> {
  const spec: RouteSpec = specOf(name);
  const headers: Record<string, string> = { ...(args.headers ?? {}) };
  if (args.token) headers.authentication = args.token;
  const response = await app.inject({
    method: spec.method,
    url: spec.path,
    query: args.query && queryText(args.query),
    headers,
    ...(args.remoteAddress ? { remoteAddress: args.remoteAddress } : {}),
    ...(args.body === undefined ? {} : Buffer.isBuffer(args.body) ? { body: args.body } : { payload: args.body as object }),
  });
  let json: Answer['json'];
  try {
    json = response.json();
  } catch {
    json = null;
  }
  return { status: response.statusCode, body: response.body, json, route: specOf(name) };
}
