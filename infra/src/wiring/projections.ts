import type { Logger } from 'pino';
import { workflows } from '@iot/command';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import {
  alarmLiveHooks,
  otaLiveHooks,
  type AnyProjection,
  createProjectionRunner,
  notificationReactor,
  projections,
  statResultsReactor,
  type AlarmReactor,
  type ProjectionRunner,
} from '@iot/projections/index.ts';
import type { Config } from '../config.ts';
import type { EventStore } from '../event-store/port.ts';
import { noBrokerAccounts, type BrokerAccounts } from '../broker-accounts/port.ts';
import { brokerAccountsReactor } from '../broker-accounts/reactor.ts';
import { mqttUserAccountsReactor } from '@iot/projections/forward/mqtt-user-accounts.ts';
import { migrator } from '../migrate/migrate.ts';
import type { createMetrics } from '../metrics.ts';
import type { SqlPool } from '../postgres/sql.ts';
import { workflowProjection } from '../workflows.ts';
import type { Stops } from './stops.ts';

export interface ProjectionWiring {
  config: Config;
  store: EventStore;
  db: SqlPool;
  projectionDb: SqlPool;
  dispatch: Dispatch;
  live: LiveFeed;
  alarms: AlarmReactor | null;
  /** Where statistic results are kept: their reactor runs where the store is open. */
  timeseries: TimeSeriesStore | null;
  accounts: BrokerAccounts;
  metrics: ReturnType<typeof createMetrics>;
  logger: Logger;
  /** Reactors of other capabilities that learn from the log (MQTT users, forwarding rules). */
  reactors?: AnyProjection[];
}

/**
 * Every read model's projection, the workflows and the reactors in one runner (set up here, started by the
 * processes that run projections); the alarm evaluator of an ingest process loads its rules and reloads them.
 */
export async function setUpProjections(w: ProjectionWiring, stops: Stops): Promise<ProjectionRunner> {
  const { config, logger } = w;
  const crashAfter = config.FAULT_CRASH_AFTER_STEP;
  const afterStep = (workflow: string, step: string) => {
    logger.debug({ workflow, step }, 'workflow step done');
    // Fault injection for the crash tests: die like a killed process between two steps.
    if (crashAfter === `${workflow}:${step}`) process.kill(process.pid, 'SIGKILL');
  };
  const runner = createProjectionRunner(
    w.store,
    w.projectionDb,
    [
      ...projections,
      ...workflows.map((workflow) => workflowProjection(workflow, w.dispatch, afterStep)),
      notificationReactor({ tenantPerMinute: config.NOTIFY_TENANT_PER_MIN, contactPerMinute: config.NOTIFY_CONTACT_PER_MIN }),
      alarmLiveHooks(w.db, w.live, w.alarms),
      otaLiveHooks(w.db, w.live),
      ...(w.reactors ?? []),
      ...(w.accounts === noBrokerAccounts ? [] : [brokerAccountsReactor(w.accounts)]),
      ...(w.accounts.mqttUsers ? [mqttUserAccountsReactor(w.accounts.mqttUsers)] : []),
      ...(w.timeseries ? [statResultsReactor(w.timeseries)] : []),
    ],
    {
      onLag: (name, lagMs) => w.metrics.observeProjection(name, lagMs),
      onError: (name, error) => logger.error({ err: error, projection: name }, 'projection failed'),
      migrate: migrator(w.db),
    },
  );
  await runner.setup();
  const reactor = w.alarms;
  if (reactor) {
    await reactor.load();
    // Processes that do not run the projections learn of rule changes and hand-cleared alarms this way.
    const reload = setInterval(
      () => void reactor.load().catch((err: unknown) => logger.error({ err }, 'alarm rules not reloaded')),
      30_000,
    );
    stops.push(async () => clearInterval(reload));
    // The pending duration windows, written before the process goes.
    stops.push(() => reactor.flush());
  }
  return runner;
}
