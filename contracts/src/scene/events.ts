import type { DomainEvent } from '../event.ts';
import type { LinkageActionResult, LinkageConditionResult, LinkageResult, SceneFields, SceneTriggerType } from './model.ts';

/** A scene (stream `scene-<tenant>.<id>`): created stopped, edited, enabled or stopped after a confirm, invoked by hand or API, deleted. */
export type SceneEvent =
  | DomainEvent<'SceneCreated', SceneFields & { sceneId: string; enabled: boolean }>
  | DomainEvent<'SceneUpdated', SceneFields & { sceneId: string }>
  | DomainEvent<'SceneEnabled', { sceneId: string }>
  | DomainEvent<'SceneStopped', { sceneId: string }>
  | DomainEvent<'SceneInvoked', { sceneId: string; runId: string }>
  | DomainEvent<'SceneDeleted', { sceneId: string }>;
export type SceneEventType = SceneEvent['type'];

/**
 * One run of a scene (stream `sceneRun-<tenant>.<runId>`): started, then finished with what it found and did.
 * The start is appended on a stream that must not exist yet, so a run (a timing trigger's fire time, an invoke)
 * starts once however many processes try it: the claim that makes a schedule fire once.
 */
export type SceneRunEvent = DomainEvent<'SceneRunStarted', SceneRunStartedData> | DomainEvent<'SceneRunFinished', SceneRunFinishedData>;
export interface SceneRunStartedData {
  runId: string;
  sceneId: string;
  sceneName: string;
  triggerType: SceneTriggerType;
  triggerContent: string;
}
export interface SceneRunFinishedData {
  runId: string;
  sceneId: string;
  conditions: LinkageConditionResult[];
  actions: LinkageActionResult[];
  result: LinkageResult;
  durationMs: number;
}
