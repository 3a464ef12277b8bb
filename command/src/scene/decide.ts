import { DomainError, type EnabledStatus, type SceneRunFinishedData, type SceneRunStartedData } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import {
  evolve,
  evolveRun,
  initialRunState,
  initialState,
  type SceneEvent,
  type SceneFields,
  type SceneRunEvent,
  type SceneRunState,
  type SceneState,
} from './scene.ts';

export type SceneCommand =
  | { type: 'CreateScene'; sceneId: string; fields: SceneFields; enabled: boolean }
  | { type: 'UpdateScene'; sceneId: string; fields: SceneFields }
  | { type: 'SetSceneStatus'; sceneId: string; status: EnabledStatus }
  | { type: 'InvokeScene'; sceneId: string; runId: string }
  | { type: 'DeleteScene'; sceneId: string };

const live = (state: SceneState) => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

/** A scene that stops or enables itself would flip on every run. */
function checkFields(sceneId: string, fields: SceneFields) {
  fields.actions.forEach((action, i) => {
    if (action.type === 'sceneStatus' && action.sceneId === sceneId) throw new DomainError('SCENE_SELF', { field: `actions.${i}.sceneId` });
  });
}

export function decide(command: SceneCommand, state: SceneState): SceneEvent[] {
  switch (command.type) {
    case 'CreateScene':
      if (state.exists) throw new DomainError('CONFLICT');
      checkFields(command.sceneId, command.fields);
      return [{ type: 'SceneCreated', data: { sceneId: command.sceneId, enabled: command.enabled, ...command.fields } }];
    case 'UpdateScene': {
      const current = live(state);
      checkFields(command.sceneId, command.fields);
      if (sameValue(command.fields, current)) return [];
      return [{ type: 'SceneUpdated', data: { sceneId: command.sceneId, ...command.fields } }];
    }
    case 'SetSceneStatus':
      live(state);
      if (state.status === command.status) return [];
      return [{ type: command.status === 'enabled' ? 'SceneEnabled' : 'SceneStopped', data: { sceneId: command.sceneId } }];
    case 'InvokeScene': {
      const fields = live(state);
      if (state.status !== 'enabled') throw new DomainError('SCENE_STOPPED');
      if (!fields.triggers.some((t) => t.type === 'invoke')) throw new DomainError('SCENE_NOT_INVOKABLE');
      return [{ type: 'SceneInvoked', data: { sceneId: command.sceneId, runId: command.runId } }];
    }
    case 'DeleteScene':
      live(state);
      return [{ type: 'SceneDeleted', data: { sceneId: command.sceneId } }];
    default:
      return unreachable(command);
  }
}

export const sceneDecider: Decider<SceneCommand, SceneEvent, SceneState> = { initialState, evolve, decide };
export const sceneStream = (tenantId: string, sceneId: string) => `scene-${tenantId}.${sceneId}`;

export type SceneRunCommand = { type: 'StartSceneRun'; run: SceneRunStartedData } | { type: 'FinishSceneRun'; run: SceneRunFinishedData };

/** A run starts once (a second start is a CONFLICT: another process has it) and finishes once. */
export function decideRun(command: SceneRunCommand, state: SceneRunState): SceneRunEvent[] {
  switch (command.type) {
    case 'StartSceneRun':
      if (state.started) throw new DomainError('CONFLICT');
      return [{ type: 'SceneRunStarted', data: command.run }];
    case 'FinishSceneRun':
      if (!state.started) throw new DomainError('NOT_FOUND');
      if (state.finished) return [];
      return [{ type: 'SceneRunFinished', data: command.run }];
    default:
      return unreachable(command);
  }
}

export const sceneRunDecider: Decider<SceneRunCommand, SceneRunEvent, SceneRunState> = {
  initialState: initialRunState,
  evolve: evolveRun,
  decide: decideRun,
};
export const sceneRunStream = (tenantId: string, runId: string) => `sceneRun-${tenantId}.${runId}`;
