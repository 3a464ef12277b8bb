import { randomUUID } from 'node:crypto';
import type { DeviceEvent, SceneEvent } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { compare, runScene, type SceneEnginePorts, type SceneFire } from './engine.ts';
import { enabledScenesWith, sceneById, type SceneRecord } from './read.ts';

/** Presence changes and invokes older than this when read (a log replayed from its start) start no run. */
const STALE_MS = 5 * 60_000;
/** Runs at once; past it a fire is counted as dropped rather than queued without end. */
const MAX_IN_FLIGHT = 500;

interface Watch {
  scene: SceneRecord;
  trigger: number;
}

/**
 * The device triggers of the enabled scenes, on the live telemetry and the presence changes of the log, and the
 * invokes. A property condition fires when it starts to hold (not on every sample while it holds).
 */
export function createSceneReactor(options: { db: Sql; ports: SceneEnginePorts; onError(error: unknown): void; maxInFlight?: number }) {
  const { db, ports } = options;
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  /** Scenes with a device trigger, by the device they watch. */
  let byDevice = new Map<string, Watch[]>();
  /** Whether each property trigger held at the device's last report, by `scene\0trigger\0device`. */
  const held = new Map<string, boolean>();
  let inFlight = 0;
  let dropped = 0;
  const idle: Array<() => void> = [];

  function fire(scene: SceneRecord, run: SceneFire) {
    if (inFlight >= maxInFlight) {
      dropped++;
      return;
    }
    inFlight++;
    runScene(ports, scene, run)
      .catch(options.onError)
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
      });
  }

  /** The scenes the reactor knows, by id: loaded from the read model, then kept by their events (which may run ahead of it). */
  let known = new Map<string, SceneRecord>();

  function index() {
    const next = new Map<string, Watch[]>();
    for (const scene of known.values()) {
      if (scene.status !== 'enabled') continue;
      scene.triggers.forEach((trigger, i) => {
        if (trigger.type !== 'device') return;
        next.set(trigger.deviceId, [...(next.get(trigger.deviceId) ?? []), { scene, trigger: i }]);
      });
    }
    byDevice = next;
  }

  async function load() {
    known = new Map((await enabledScenesWith(db, 'device')).map((scene) => [scene.id, scene]));
    index();
  }

  /** A scene's change applied to what the reactor knows. */
  async function apply(event: StoredEventOf<SceneEvent>) {
    const { tenantId, occurredAt } = event.metadata;
    const id = event.data.sceneId;
    switch (event.type) {
      case 'SceneCreated':
      case 'SceneUpdated': {
        const { sceneId: _id, ...fields } = event.data;
        const before = known.get(id);
        const status =
          event.type === 'SceneCreated'
            ? event.data.enabled
              ? 'enabled'
              : 'stopped'
            : (before?.status ?? (await sceneById(db, tenantId, id))?.status ?? 'stopped');
        const { enabled: _enabled, ...rest } = fields as typeof fields & { enabled?: boolean };
        known.set(id, {
          ...rest,
          id,
          tenantId,
          status,
          lastRunAt: before?.lastRunAt ?? null,
          createdAt: before?.createdAt ?? new Date(occurredAt),
          updatedAt: new Date(occurredAt),
        });
        break;
      }
      case 'SceneEnabled':
      case 'SceneStopped': {
        const scene = known.get(id) ?? (await sceneById(db, tenantId, id));
        if (scene) known.set(id, { ...scene, status: event.type === 'SceneEnabled' ? 'enabled' : 'stopped' });
        break;
      }
      case 'SceneDeleted':
        known.delete(id);
        break;
      default:
        return;
    }
    index();
  }

  return {
    load,

    /** Stored samples of one device: each property trigger on it that starts to hold fires its scene. */
    observe(device: { deviceId: string; tenantId: string }, rows: readonly TelemetryRow[]) {
      const watches = byDevice.get(device.deviceId);
      if (!watches || rows.length === 0) return;
      for (const { scene, trigger: i } of watches) {
        const trigger = scene.triggers[i];
        if (scene.tenantId !== device.tenantId || trigger?.type !== 'device' || trigger.match.kind !== 'property') continue;
        const { identifier, operator, value } = trigger.match;
        const row = rows.findLast((r) => r.variable === identifier);
        if (!row) continue;
        const key = `${scene.id}\0${i}\0${device.deviceId}`;
        const actual = row.value ?? row.text;
        const now = compare(actual, operator, value);
        const before = held.get(key) ?? false;
        held.set(key, now);
        if (now && !before)
          fire(scene, {
            triggerType: 'device',
            content: `${device.deviceId}: ${identifier} = ${String(actual)} (${operator} ${String(value)})`,
            runId: randomUUID(),
          });
      }
    },

    /** Reported thing-model events start no scene (the triggers are status and property). */
    observeEvent() {},

    /** A presence change from the log: the status triggers on the device fire. */
    observeLog(event: StoredEventOf<DeviceEvent>, now = Date.now()) {
      if (event.type !== 'DeviceWentOnline' && event.type !== 'DeviceWentOffline') return;
      if (now - Date.parse(event.metadata.occurredAt) > STALE_MS) return;
      const status = event.type === 'DeviceWentOnline' ? 'online' : 'offline';
      for (const { scene, trigger: i } of byDevice.get(event.data.deviceId) ?? []) {
        const trigger = scene.triggers[i];
        if (scene.tenantId !== event.metadata.tenantId || trigger?.type !== 'device' || trigger.match.kind !== 'status') continue;
        if (trigger.match.status !== status) continue;
        fire(scene, {
          triggerType: 'device',
          content: `${event.data.deviceId}: ${status} @ ${event.data.at}`,
          runId: `${event.id}.${scene.id}.${i}`,
          causationId: event.id,
        });
      }
    },

    /** A scene's own events: invoked (run it now, for whoever invoked it), or changed (watch the new set). */
    async onEvent(event: StoredEventOf<SceneEvent>, now = Date.now()) {
      if (event.type !== 'SceneInvoked') return apply(event);
      if (now - Date.parse(event.metadata.occurredAt) > STALE_MS) return;
      const scene = known.get(event.data.sceneId) ?? (await sceneById(db, event.metadata.tenantId, event.data.sceneId));
      if (!scene) return;
      const actor = event.metadata.actor;
      fire(scene, {
        triggerType: 'invoke',
        content: `${actor.kind} ${actor.id}`,
        runId: event.data.runId,
        actor,
        causationId: event.id,
      });
    },

    /** Resolves once no run is going (shutdown, tests). */
    drain: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    stats: () => ({ inFlight, dropped, watchedDevices: byDevice.size }),
  };
}
export type SceneReactor = ReturnType<typeof createSceneReactor>;
