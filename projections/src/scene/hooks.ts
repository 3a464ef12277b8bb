import type { DeviceEvent, SceneEvent } from '@iot/contracts';
import { projection } from '../projection.ts';
import type { SceneReactor } from './reactor.ts';

/**
 * What the scenes learn from the log: their own changes (the watched set reloaded), invokes (run now), and the
 * presence changes that fire device status triggers. It keeps the scenes from their events, which may run ahead of the read model.
 */
export function sceneHooks(scenes: SceneReactor) {
  return projection<SceneEvent | DeviceEvent>({
    name: 'reactor-scenes',
    handles: [
      'SceneCreated',
      'SceneUpdated',
      'SceneEnabled',
      'SceneStopped',
      'SceneDeleted',
      'SceneInvoked',
      'DeviceWentOnline',
      'DeviceWentOffline',
    ],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      switch (event.type) {
        case 'DeviceWentOnline':
        case 'DeviceWentOffline':
          return scenes.observeLog(event);
        case 'SceneCreated':
        case 'SceneUpdated':
        case 'SceneEnabled':
        case 'SceneStopped':
        case 'SceneDeleted':
        case 'SceneInvoked':
          return scenes.onEvent(event);
        default:
          return;
      }
    },
  });
}
