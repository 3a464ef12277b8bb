import { expect } from 'vitest';
import { routes, type Routes } from '@iot/contracts';
import type { BodyIn, QueryIn, ResultOf, RouteSpec } from '@iot/contracts/http/route.ts';

/**
 * The test client's side of the route table (STYLE.md "One contract, two ends"): tests call a route by its name,
 * with the body and query its schemas take, so that renaming a route or one of its fields breaks the compile.
 * Only tests of the HTTP surface itself (unknown paths, malformed requests) name a method and a path.
 */
export type RouteName = keyof Routes;

/**
 * A query as a URL carries it: each field the route declares, as a value its schema takes or as that value's text;
 * and on every route the current group (spec §6 `stationId`), which the adapter reads before the route's schema.
 */
export type QueryArg<R extends RouteSpec> = (QueryIn<R> extends object
  ? { [K in keyof QueryIn<R>]?: Loose<QueryIn<R>[K]> | string | null }
  : unknown) & { stationId?: string };

/**
 * A schema's input with its enum values loosened to their kind (a test's constants need no `as const`): the fields,
 * their names and which are required stay the schema's, so that renaming one breaks the compile.
 */
export type Loose<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends ReadonlyArray<infer U>
        ? Loose<U>[]
        : T extends object
          ? { [K in keyof T]: Loose<T[K]> }
          : T;

/** What a route takes as its body: its schema's input, or the bytes of a route that takes a file or an image. */
export type BodyArg<R extends RouteSpec> = R['consumes'] extends string ? Buffer | Uint8Array : Loose<BodyIn<R>>;

export interface RouteArgs<R extends RouteSpec> {
  token?: string;
  body?: BodyArg<R>;
  query?: QueryArg<R>;
  headers?: Record<string, string>;
  /** The caller's address (each call has its own unless told, so that the per-address throttles stay out of the way). */
  remoteAddress?: string;
}

export const specOf = <N extends RouteName>(name: N): Routes[N] => routes[name];

/** An answer as the test client gives it: the status, the raw body and the envelope, and the route it came from. */
export interface Answer<R extends RouteSpec = RouteSpec> {
  status: number;
  body: string;
  json: { code: number; msg: string; data: any } | null;
  /** The route the call named (absent on a call by method and path). */
  route?: R;
}

/** The data of a successful answer, typed by its route's response schema. */
export function ok<R extends RouteSpec>(answer: Answer<R>): ResultOf<R> {
  expect(answer.status, answer.body).toBe(200);
  return answer.json!.data as ResultOf<R>;
}

/** The error code of a refused answer (`VALIDATION`, `FORBIDDEN`, ...). */
export const refusal = (answer: Pick<Answer, 'json'>): string | undefined => answer.json?.data?.error;

/** Whether the first argument of a call names a route of the table (else it is a method, followed by a path). */
export const isRouteName = (value: string): value is RouteName => Object.hasOwn(routes, value);

/** The body a route takes, by the route's name: what a test's builder of bodies returns. */
export type BodyOf<N extends RouteName> = BodyArg<Routes[N]>;
/** The query a route takes, by the route's name. */
export type QueryOf<N extends RouteName> = QueryArg<Routes[N]>;

/** A body or query the route's schema refuses, sent on purpose (a test of validation): the compiler is told so. */
export const malformed = (value: unknown): never => value as never;
