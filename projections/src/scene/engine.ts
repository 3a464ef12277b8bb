import type {
  ComparisonOperator,
  LinkageActionResult,
  LinkageConditionResult,
  LinkageResult,
  SceneAction,
  SceneCondition,
  SceneTriggerType,
} from '@iot/contracts';
import type { Dispatch, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { SceneRecord } from './read.ts';

/** What running a scene needs: the dispatch port for its claim, its actions and its log; the devices' state. */
export interface SceneEnginePorts {
  dispatch: Dispatch;
  /** Whether the device is online; null when the tenant has no such device. */
  online(tenantId: string, deviceId: string): Promise<boolean | null>;
  /** The latest values of these identifiers of the device, those it has. */
  latest(tenantId: string, deviceId: string, identifiers: readonly string[]): Promise<Record<string, unknown>>;
  /** How many runs of the scene did something before this one: whose turn a rotation gives. */
  runsDone(tenantId: string, sceneId: string): Promise<number>;
  /**
   * Sends a notification through a configuration of the tenant (template, send ways, contacts); `sourceKey` makes a
   * run notify once. Answers the recipients' count, or null when the tenant has no such enabled configuration.
   */
  notify(n: { tenantId: string; configId: string; sourceKey: string; sceneName: string; deviceId: string | null }): Promise<number | null>;
  now?(): Date;
}

/** What set a run off: its type, words for the log, and the run's id (fixed for a timing fire time or an invoke: the claim). */
export interface SceneFire {
  triggerType: SceneTriggerType;
  content: string;
  runId: string;
  /** Who the run acts for: the invoking user, or the system for schedules and devices. */
  actor?: DispatchMetadata['actor'];
  causationId?: string | null;
}

/** A comparison of spec §9 between a reported value and the one set: numbers by order, anything else by equality. */
export function compare(actual: unknown, operator: ComparisonOperator, expected: unknown): boolean {
  if (actual === undefined || actual === null) return false;
  const a = typeof actual === 'boolean' || typeof expected === 'boolean' ? actual : Number(actual);
  if (typeof expected === 'number' && typeof a === 'number' && Number.isFinite(a)) {
    switch (operator) {
      case 'gt':
        return a > expected;
      case 'gte':
        return a >= expected;
      case 'eq':
        return a === expected;
      case 'lt':
        return a < expected;
      case 'lte':
        return a <= expected;
    }
  }
  return operator === 'eq' && String(actual) === String(expected);
}

const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Whether an instant falls in a daily window of a zone (an end before the start spans midnight), on one of the weekdays. */
export function inTimeWindow(condition: Extract<SceneCondition, { type: 'time' }>, at: Date): boolean {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: condition.timeZone,
    hourCycle: 'h23',
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const now = Number(part('hour')) * 60 + Number(part('minute'));
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(part('weekday')) + 1;
  const from = minutesOf(condition.from);
  const to = minutesOf(condition.to);
  const inside = from <= to ? now >= from && now < to : now >= from || now < to;
  // A window past midnight belongs to the day it started on.
  const day = from > to && now < to ? ((weekday + 5) % 7) + 1 : weekday;
  return inside && (condition.weekdays.length === 0 || condition.weekdays.includes(day));
}

async function checkCondition(
  ports: SceneEnginePorts,
  tenantId: string,
  condition: SceneCondition,
  at: Date,
): Promise<LinkageConditionResult> {
  switch (condition.type) {
    case 'deviceStatus': {
      const online = await ports.online(tenantId, condition.deviceId);
      if (online === null) return { condition, result: false, detail: 'device not found' };
      return { condition, result: online === (condition.status === 'online'), detail: online ? 'online' : 'offline' };
    }
    case 'deviceProperty': {
      const values = await ports.latest(tenantId, condition.deviceId, [condition.identifier]);
      const value = values[condition.identifier];
      return {
        condition,
        result: compare(value, condition.operator, condition.value),
        detail: value === undefined ? 'no value' : String(value),
      };
    }
    case 'time':
      return { condition, result: inTimeWindow(condition, at), detail: at.toISOString() };
  }
}

async function runAction(
  ports: SceneEnginePorts,
  scene: SceneRecord,
  action: SceneAction,
  metadata: DispatchMetadata,
  turn: number,
): Promise<LinkageActionResult[]> {
  const attempt = async (target: string | null, run: () => Promise<unknown>): Promise<LinkageActionResult> => {
    try {
      await run();
      return { action, target, ok: true, error: null };
    } catch (error) {
      // A refused command keeps its stable code (COMMAND_INVALID, NOT_FOUND) in the log; anything else its message.
      return {
        action,
        target,
        ok: false,
        error: (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error)),
      };
    }
  };
  const meta = (key: string): DispatchMetadata => ({ ...metadata, idempotencyKey: `${metadata.idempotencyKey}:${key}` });
  switch (action.type) {
    case 'setProperty':
      return [
        await attempt(action.deviceId, () =>
          ports.dispatch(
            {
              type: 'SendDeviceCommand',
              deviceId: action.deviceId,
              kind: 'property',
              identifier: action.identifier,
              params: { value: action.value },
            },
            meta(`${action.deviceId}:${action.identifier}`),
          ),
        ),
      ];
    case 'invokeService':
      return [
        await attempt(action.deviceId, () =>
          ports.dispatch(
            { type: 'SendDeviceCommand', deviceId: action.deviceId, kind: 'service', identifier: action.identifier, params: action.params },
            meta(`${action.deviceId}:${action.identifier}`),
          ),
        ),
      ];
    case 'rotation': {
      // The device whose turn it is gets `onValue`, each other one `offValue`: one answer per device in the log.
      const on = action.deviceIds[turn % action.deviceIds.length]!;
      const out: LinkageActionResult[] = [];
      for (const deviceId of action.deviceIds) {
        const value = deviceId === on ? action.onValue : action.offValue;
        const result = await attempt(deviceId, () =>
          ports.dispatch(
            { type: 'SendDeviceCommand', deviceId, kind: 'property', identifier: action.identifier, params: { value } },
            meta(`${deviceId}:${action.identifier}`),
          ),
        );
        out.push({ ...result, target: deviceId === on ? `${deviceId} (on)` : deviceId });
      }
      return out;
    }
    case 'sceneStatus':
      return [
        await attempt(action.sceneId, () =>
          ports.dispatch({ type: 'SetSceneStatus', sceneId: action.sceneId, status: action.status }, meta(`scene:${action.sceneId}`)),
        ),
      ];
    case 'notify':
      return [
        await attempt(action.configId, async () => {
          const sent = await ports.notify({
            tenantId: scene.tenantId,
            configId: action.configId,
            sourceKey: `${metadata.idempotencyKey}:notify:${action.configId}`,
            sceneName: scene.name,
            deviceId: action.deviceId ?? null,
          });
          if (sent === null) throw Object.assign(new Error('notification configuration not found or stopped'), { code: 'NOT_FOUND' });
        }),
      ];
  }
}

const resultOf = (actions: LinkageActionResult[]): LinkageResult => {
  const ok = actions.filter((a) => a.ok).length;
  if (ok === actions.length) return 'success';
  return ok === 0 ? 'failed' : 'partial';
};

/**
 * Runs a scene once for a fire: claims the run (a second process trying the same run id gets nothing and stops),
 * checks the conditions, does the actions when they hold, and logs the outcome. Answers the result, or null when
 * another process had claimed the run.
 */
export async function runScene(ports: SceneEnginePorts, scene: SceneRecord, fire: SceneFire): Promise<LinkageResult | null> {
  const started = Date.now();
  const at = ports.now?.() ?? new Date();
  const metadata: DispatchMetadata = {
    tenantId: scene.tenantId,
    actor: fire.actor ?? { kind: 'system', id: 'scene' },
    correlationId: fire.runId,
    causationId: fire.causationId ?? null,
    idempotencyKey: `scene-run:${fire.runId}`,
  };
  const claim = await ports.dispatch(
    {
      type: 'StartSceneRun',
      runId: fire.runId,
      sceneId: scene.id,
      sceneName: scene.name,
      triggerType: fire.triggerType,
      triggerContent: fire.content,
    },
    metadata,
  );
  if (!claim.id) return null;
  const conditions: LinkageConditionResult[] = [];
  for (const condition of scene.conditions) conditions.push(await checkCondition(ports, scene.tenantId, condition, at));
  const hold =
    conditions.length === 0 || (scene.conditionMode === 'any' ? conditions.some((c) => c.result) : conditions.every((c) => c.result));
  const actions: LinkageActionResult[] = [];
  if (hold) {
    const turn = scene.actions.some((a) => a.type === 'rotation') ? await ports.runsDone(scene.tenantId, scene.id) : 0;
    for (const action of scene.actions) actions.push(...(await runAction(ports, scene, action, metadata, turn)));
  }
  const result: LinkageResult = hold ? resultOf(actions) : 'skipped';
  await ports.dispatch(
    { type: 'FinishSceneRun', runId: fire.runId, sceneId: scene.id, conditions, actions, result, durationMs: Date.now() - started },
    { ...metadata, idempotencyKey: `${metadata.idempotencyKey}:finish` },
  );
  return result;
}
