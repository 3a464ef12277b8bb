import { routes, type Routes } from '@iot/contracts';
import { urlOf, type ResultOf, type RouteSpec } from '@iot/contracts/http/route.ts';
import type { Answer, RouteArgs, RouteName } from './api.ts';

/**
 * The typed test client over a real socket, for a platform in another process or a benchmark's: a route by its
 * name in the route table, with the body and query its schemas take (as `sut.call` does in process), so that
 * renaming a route or one of its fields breaks the compile. Free of vitest, so that benchmarks can use it.
 */
export function fetchClient(base: string) {
  async function call<N extends RouteName>(name: N, args: RouteArgs<Routes[N]> = {}): Promise<Answer<Routes[N]>> {
    const spec: RouteSpec = routes[name];
    const raw = args.body instanceof Uint8Array;
    const headers: Record<string, string> = {
      ...(args.body === undefined ? {} : { 'content-type': raw ? 'application/octet-stream' : 'application/json' }),
      ...(args.token ? { authentication: args.token } : {}),
      ...args.headers,
    };
    const response = await fetch(base + urlOf(spec, args.query), {
      method: spec.method,
      headers,
      body: args.body === undefined ? undefined : raw ? (args.body as Uint8Array) : JSON.stringify(args.body),
    });
    const body = await response.text();
    let json: Answer['json'];
    try {
      json = JSON.parse(body) as Answer['json'];
    } catch {
      json = null;
    }
    return { status: response.status, body, json, route: spec as Routes[N] };
  }

  /** The data of a route's answer, typed by its response schema; any answer but success throws, naming the route. */
  async function data<N extends RouteName>(name: N, args: RouteArgs<Routes[N]> = {}): Promise<ResultOf<Routes[N]>> {
    const answer = await call(name, args);
    if (answer.status !== 200 || answer.json?.code !== 200) throw new Error(`${name}: ${answer.status} ${answer.body.slice(0, 500)}`);
    return answer.json.data as ResultOf<Routes[N]>;
  }

  return { base, call, data };
}
export type FetchClient = ReturnType<typeof fetchClient>;
