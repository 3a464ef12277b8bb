import { existsSync } from 'node:fs';
import path from 'node:path';
import { channels, routes } from '@iot/contracts';
import type { Handlers, Ports } from '@iot/contracts/http/handler.ts';
import type { DeviceIntakePort } from '@iot/contracts/ports/intake.ts';
import { createDeviceRegistry, type Ingest } from '@iot/ingest';
import { createDeviceDirectory } from '../read-models/device-directory.ts';
import type { ProjectionRunner } from '@iot/projections/index.ts';
import type { Config, Role } from '../config.ts';
import { noBrokerAccounts, type BrokerAccounts } from '../broker-accounts/port.ts';
import { withBrokerSecrets } from '../broker-accounts/secrets.ts';
import { withMqttUserPasswords } from '../broker-accounts/mqtt-user-passwords.ts';
import { createApp, type App } from '../http/app.ts';
import type { AppContext } from '../http/context.ts';
import type { TusOptions } from '../http/tus.ts';
import type { createLiveRelay } from '../http/live.ts';
import { createPrincipalCache } from '../http/principals.ts';
import { createReadModelWatch } from '../http/watch.ts';
import { brokerAddress } from '../mqtt/client.ts';
import { mqttHookRoutes } from '../mqtt/hooks.ts';
import type { SqlPool } from '../postgres/sql.ts';
import type { Stops } from './stops.ts';

/** The web app's folder: as asked, or web/dist when it has been built. */
function staticDirOf(asked: string | null | undefined): string | undefined {
  if (asked !== undefined) return asked ?? undefined;
  const built = path.resolve('web/dist');
  return existsSync(path.join(built, 'index.html')) ? built : undefined;
}

/** Device reports over HTTP go to this process's intake (an `api` process alone has none). */
const httpIntake = (ingest: Ingest | null): DeviceIntakePort | null =>
  ingest
    ? {
        report: async ({ sn, secret, token }, body) => {
          const device = await ingest.registry.authenticate(token ?? sn, token ? undefined : secret);
          return device ? ingest.intake.handleHttp(device, body) : null;
        },
      }
    : null;

export interface HttpWiring {
  config: Config;
  role: Role;
  context: AppContext;
  ports: Omit<Ports, 'intake' | 'link'>;
  handlers: Handlers<typeof routes>;
  live: ReturnType<typeof createLiveRelay>;
  ingest: Ingest | null;
  accounts: BrokerAccounts;
  runner: ProjectionRunner;
  projectionDb: SqlPool;
  staticDir: string | null | undefined;
  port: number | undefined;
  /** Where resumable uploads wait for their last byte. */
  tus?: TusOptions;
}

/** The Fastify adapter over the route table, its channels and sessions, and EMQX's hook routes; listening. */
export async function startHttp(w: HttpWiring, stops: Stops): Promise<{ app: App; url: string }> {
  const { config, context, ingest } = w;
  const ports: Ports = { ...w.ports, intake: httpIntake(ingest), link: ingest?.link ?? null };
  const watch = w.role === 'all' ? createReadModelWatch({ local: () => w.runner.status() }) : createReadModelWatch({ db: w.projectionDb });
  const principals = createPrincipalCache(context.db, context.store, watch);
  await principals.start();
  stops.push(() => principals.stop());
  // EMQX asks the platform whether a device may connect, publish and subscribe (README "External MQTT broker").
  const hooks = config.MQTT_HOOK_SECRET
    ? [
        mqttHookRoutes({
          secret: config.MQTT_HOOK_SECRET,
          // The intake's registry forgets a device as it changes; without one here, nothing is kept.
          registry: ingest?.registry ?? createDeviceRegistry(createDeviceDirectory(context.db), { deviceTtlMs: 0 }),
          platform: config.MQTT_URL ? brokerAddress(config.MQTT_URL) : undefined,
        }),
      ]
    : [];
  // Secrets and passwords in clear reach an external broker's accounts from the answers that know them.
  const withSecrets = w.accounts === noBrokerAccounts ? w.handlers : withBrokerSecrets(w.handlers, w.accounts, context.logger);
  const handlers = w.accounts.mqttUsers ? withMqttUserPasswords(withSecrets, w.accounts.mqttUsers, context.logger) : withSecrets;
  const app = await createApp(context, hooks, {
    staticDir: staticDirOf(w.staticDir),
    resolvePrincipal: (token) => principals.resolve(token),
    channels: { specs: channels, lookups: ports.lookups, onHub: (hub) => w.live.attach(hub) },
    trustedProxies: config.TRUSTED_PROXIES?.split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    cookieDomain: config.COOKIE_DOMAIN,
    ...(w.tus ? { tus: w.tus } : {}),
    table: {
      routes,
      handlers,
      ports,
      watch,
      // The HTTP ingest: a device's own credentials, no session (its requests skip the API's hooks).
      deviceRoutes: ['telemetry.report'],
    },
  });
  stops.push(() => app.close());
  const address = await app.listen({ port: w.port ?? config.PORT, host: config.HOST });
  return { app, url: address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost') };
}
