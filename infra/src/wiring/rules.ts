import type { Logger } from 'pino';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { deviceForRules, productForRules } from '@iot/projections/device/read.ts';
import { enqueueInboxNotification } from '@iot/projections/alarm/outbox.ts';
import { createForwardEnqueuer } from '@iot/projections/forward/outbox.ts';
import { ruleChainHooks } from '@iot/projections/rule/hooks.ts';
import { createRuleChainReactor, type RuleChainReactor } from '@iot/projections/rule/reactor.ts';
import { createRuleJournal, type RuleJournal } from '@iot/projections/rule/journal.ts';
import type { NotificationCaps } from '@iot/projections/alarm/notifications.ts';
import type { SqlPool } from '../postgres/sql.ts';
import { configNotifier } from './scenes.ts';
import type { Stops } from './stops.ts';

/** The tenants' root rule chains on the telemetry (with the intake), over the device read module and the time series. */
export function createRuleChains(w: {
  db: SqlPool;
  timeseries: TimeSeriesStore;
  dispatch: Dispatch;
  logger: Logger;
  caps: NotificationCaps;
  /** Fault injection for the crash tests: the messages forwarded after the Nth never reach the outbox. */
  stallForwardAfter?: number;
}) {
  const { db, timeseries, logger } = w;
  const enqueue = createForwardEnqueuer(db);
  let forwarded = 0;
  const stallAfter = w.stallForwardAfter;
  const notifyThrough = configNotifier(db, w.caps);
  const journal = createRuleJournal(db, (err) => logger.error({ err }, 'rule chain failures and traces not written'));
  const reactor = createRuleChainReactor({
    db,
    ports: {
      dispatch: w.dispatch,
      lookups: {
        device: (tenantId, deviceId) => deviceForRules(db, tenantId, deviceId),
        product: (tenantId, productId) => productForRules(db, tenantId, productId),
        latest: async (tenantId, deviceId, variables) =>
          Object.fromEntries(
            (await timeseries.latest({ tenantId, deviceIds: [deviceId], variables })).map((r) => [r.variable, r.value ?? r.text]),
          ),
      },
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
      notify: async ({ deviceId, configId, ...n }) => {
        if (configId) {
          const values = { rule: n.subject, value: n.body };
          if ((await notifyThrough({ tenantId: n.tenantId, configId, sourceKey: n.sourceKey, deviceId, values })) === null)
            throw new Error(`notification configuration ${configId} not found or stopped`);
          return;
        }
        const sn = (await deviceForRules(db, n.tenantId, deviceId))?.sn;
        await enqueueInboxNotification(db, { ...n, sn: typeof sn === 'string' ? sn : null });
      },
      forward:
        stallAfter === undefined ? enqueue : (item) => (++forwarded > stallAfter ? new Promise<void>(() => undefined) : enqueue(item)),
    },
    onFailure: (failure) => {
      logger.warn({ chainId: failure.chainId, nodeId: failure.nodeId, error: failure.error }, 'rule chain node failed');
      journal.failure(failure);
    },
    onTrace: (tenantId, trace) => journal.trace(tenantId, trace),
    onRun: (tenantId, chainId) => journal.ran(tenantId, chainId),
    onError: (err) => logger.error({ err }, 'rule chain run failed'),
  });
  return { reactor, journal, hooks: ruleChainHooks(reactor) };
}

/** Once the read models exist: the running chains loaded, and reloaded where the projections run elsewhere. */
export async function loadRuleChains(rules: { reactor: RuleChainReactor; journal: RuleJournal }, logger: Logger, stops: Stops) {
  const { reactor, journal } = rules;
  await reactor.load();
  const reload = setInterval(() => void reactor.load().catch((err: unknown) => logger.error({ err }, 'rule chains not reloaded')), 30_000);
  stops.push(async () => clearInterval(reload));
  // Stopped last first: the chains drain, then what they journaled is written while the pool is still open.
  stops.push(() => journal.flush());
  stops.push(() => reactor.drain());
}
