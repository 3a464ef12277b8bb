import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '@iot/infra/config.ts';
import type { EventStore } from '@iot/infra/event-store/port.ts';
import type { SqlPool } from '@iot/infra/postgres/sql.ts';
import type { Notifier } from '@iot/infra/notify/port.ts';

/** The platform's Fastify app (here, not in app.ts, so that what app.ts registers can name it without a circle). */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface EngineHealth {
  name: string;
  check(): Promise<{ ok: boolean; detail?: string }>;
}

/** What routes get to work with: the ports, never the engines' own clients. */
export interface AppContext {
  config: Config;
  store: EventStore;
  /** The read models' database. */
  db: SqlPool;
  notifier: Notifier;
  metrics: Registry;
  logger: Logger;
  engines: EngineHealth[];
  /** Resolves when the read models have caught up with the log (used to answer read-your-writes). */
  awaitProjections?(): Promise<void>;
}
