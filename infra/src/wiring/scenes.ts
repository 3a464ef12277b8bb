import type { Logger } from 'pino';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import type { TemplateValues } from '@iot/contracts';
import { enqueueConfigNotification, type NotificationCaps } from '@iot/projections/alarm/notifications.ts';
import { deviceForRules } from '@iot/projections/device/read.ts';
import type { SceneEnginePorts } from '@iot/projections/scene/engine.ts';
import { sceneHooks } from '@iot/projections/scene/hooks.ts';
import { sceneRunsDone } from '@iot/projections/scene/read.ts';
import { createSceneReactor, type SceneReactor } from '@iot/projections/scene/reactor.ts';
import { createSceneScheduler } from '@iot/projections/scene/scheduler.ts';
import type { SqlPool } from '../postgres/sql.ts';
import type { Stops } from './stops.ts';
import { sinceLastTick, startTicker } from './ticker.ts';

/** Timing triggers fire within this long of their time. */
const TICK_MS = 2_000;

/**
 * A notification through a configuration of the tenant, naming a device when there is one (its name and SN in the
 * template's variables): what a scene's notify action and a rule chain's notify node send.
 */
export function configNotifier(db: SqlPool, caps: NotificationCaps) {
  return async (n: { tenantId: string; configId: string; sourceKey: string; deviceId: string | null; values: TemplateValues }) => {
    const device = n.deviceId ? await deviceForRules(db, n.tenantId, n.deviceId) : null;
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    const sn = text(device?.sn);
    return enqueueConfigNotification(db, caps, {
      tenantId: n.tenantId,
      configId: n.configId,
      sourceKey: n.sourceKey,
      sn,
      groupId: text(device?.groupId),
      values: { device: text(device?.name) ?? n.deviceId, sn, time: new Date().toISOString().replace('T', ' ').slice(0, 19), ...n.values },
    });
  };
}

/** What running a scene reads and does, over the device read module, the time series and the dispatch port. */
export function sceneEnginePorts(
  db: SqlPool,
  timeseries: TimeSeriesStore | null,
  dispatch: Dispatch,
  caps: NotificationCaps,
): SceneEnginePorts {
  const notify = configNotifier(db, caps);
  return {
    dispatch,
    online: async (tenantId, deviceId) => {
      const device = await deviceForRules(db, tenantId, deviceId);
      return device ? device.status === 'online' : null;
    },
    latest: async (tenantId, deviceId, variables) =>
      timeseries
        ? Object.fromEntries(
            (await timeseries.latest({ tenantId, deviceIds: [deviceId], variables })).map((r) => [r.variable, r.value ?? r.text]),
          )
        : {},
    runsDone: (tenantId, sceneId) => sceneRunsDone(db, tenantId, sceneId),
    notify: ({ sceneName, ...n }) => notify({ ...n, values: { rule: sceneName, status: 'scene' } }),
  };
}

/** The scenes' device triggers (on the telemetry, with the intake) and invokes and presence changes (from the log). */
export function createScenes(w: {
  db: SqlPool;
  timeseries: TimeSeriesStore | null;
  dispatch: Dispatch;
  logger: Logger;
  caps: NotificationCaps;
}) {
  const reactor = createSceneReactor({
    db: w.db,
    ports: sceneEnginePorts(w.db, w.timeseries, w.dispatch, w.caps),
    onError: (err) => w.logger.error({ err }, 'scene run failed'),
  });
  return { reactor, hooks: sceneHooks(reactor) };
}

/** Once the read models exist: the watched scenes loaded, and reloaded where the projections run elsewhere. */
export async function loadScenes(reactor: SceneReactor, logger: Logger, stops: Stops) {
  await reactor.load();
  const reload = setInterval(() => void reactor.load().catch((err: unknown) => logger.error({ err }, 'scenes not reloaded')), 30_000);
  stops.push(async () => clearInterval(reload));
  stops.push(() => reactor.drain());
}

/** Runs the scenes' timing triggers, one tick at a time; other processes running it too claim each fire once between them. */
export function startSceneScheduler(
  db: SqlPool,
  timeseries: TimeSeriesStore | null,
  dispatch: Dispatch,
  logger: Logger,
  stops: Stops,
  caps: NotificationCaps,
): void {
  const scheduler = createSceneScheduler({
    db,
    ports: sceneEnginePorts(db, timeseries, dispatch, caps),
    onError: (scene, err) => logger.error({ err, sceneId: scene.id, tenantId: scene.tenantId }, 'scene schedule failed'),
  });
  startTicker(
    'scene scheduler tick',
    TICK_MS,
    sinceLastTick((previous, now) => scheduler.tick(previous, now)),
    logger,
    stops,
  );
}
