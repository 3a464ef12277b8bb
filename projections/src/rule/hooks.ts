import type { AlarmEvent, DeviceEvent, RuleChainEvent } from '@iot/contracts';
import { projection } from '../projection.ts';
import type { RuleChainReactor } from './reactor.ts';

/**
 * What the rule chains learn from the log: saves and switches of the running version (the next message goes
 * through it), and the presence changes and raised alarms that enter the root chains beside the telemetry.
 */
export function ruleChainHooks(rules: RuleChainReactor | null) {
  return projection<RuleChainEvent | DeviceEvent | AlarmEvent>({
    name: 'reactor-rule-chains',
    handles: [
      'RuleChainCreated',
      'RuleChainSaved',
      'RuleChainVersionSwitched',
      'RuleChainDeleted',
      'RuleNodeDebugSet',
      'DeviceWentOnline',
      'DeviceWentOffline',
      'AlarmRaised',
    ],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      switch (event.type) {
        case 'RuleChainCreated':
        case 'RuleChainSaved':
        case 'RuleChainVersionSwitched':
        case 'RuleChainDeleted':
        case 'RuleNodeDebugSet':
          return rules?.onEvent(event);
        case 'DeviceWentOnline':
        case 'DeviceWentOffline':
        case 'AlarmRaised':
          return rules?.observeLog(event);
        default:
          return;
      }
    },
  });
}
