import type { Routes } from '@iot/contracts';
import { urlOf, type ResultOf, type RouteSpec } from '@iot/contracts/http/route.ts';
import { specOf, type Answer, type RouteArgs, type RouteName } from './api.ts';

/**
 * The typed test client over a real socket (`base` is the platform's URL): what browser tests use to set up what
 * they are not about. `send` answers as `sut.call` does; `call` expects success and gives its data.
 */
export function httpClient(base: string, token?: string) {
  async function send<N extends RouteName>(name: N, args: RouteArgs<Routes[N]> = {}): Promise<Answer<Routes[N]>> {
    const spec: RouteSpec = specOf(name);
    const binary = args.body instanceof Uint8Array;
    const bearer = args.token ?? token;
    const response = await fetch(base + urlOf(spec, args.query), {
      method: spec.method,
      headers: {
        ...(args.body === undefined
          ? {}
          : { 'content-type': binary ? (spec.consumes === 'image/png' ? 'image/png' : 'application/octet-stream') : 'application/json' }),
        ...(bearer ? { authentication: bearer } : {}),
        ...(args.headers ?? {}),
      },
      body: args.body === undefined ? undefined : binary ? (args.body as Uint8Array) : JSON.stringify(args.body),
    });
    const body = await response.text();
    let json: Answer['json'];
    try {
      json = JSON.parse(body);
    } catch {
      json = null;
    }
    return { status: response.status, body, json, route: specOf(name) };
  }
  /** The data of a route's successful answer; anything else throws, naming the route and the message. */
  async function call<N extends RouteName>(name: N, args: RouteArgs<Routes[N]> = {}): Promise<ResultOf<Routes[N]>> {
    const answer = await send(name, args);
    if (answer.status !== 200 || answer.json?.code !== 200) throw new Error(`${name}: ${answer.status} ${answer.body}`);
    return answer.json.data as ResultOf<Routes[N]>;
  }
  return { send, call };
}
export type HttpClient = ReturnType<typeof httpClient>;

/** The typed client logged in as `account` (the login route's own answer gives the token). */
export async function httpClientAs(base: string, account: string, password: string) {
  const { token } = await httpClient(base).call('auth.login', { body: { account, password, agreement: true } });
  return { token, ...httpClient(base, token) };
}
