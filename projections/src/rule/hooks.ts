import type { AlarmEvent, DeviceEvent, ProductEvent, RuleChainEvent } from '@iot/contracts';
import { projection } from '../projection.ts';
import type { RuleChainReactor } from './reactor.ts';

/**
 * What the rule chains learn from the log: saves and switches of the running version (the next message goes
 * through it), the presence changes and raised alarms that enter the root chains beside the telemetry, and the
 * device and product changes after which enrich nodes read their fields again.
 */
export function ruleChainHooks(rules: RuleChainReactor | null) {
  return projection<RuleChainEvent | DeviceEvent | ProductEvent | AlarmEvent>({
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
      'DeviceUpdated',
      'DeviceMoved',
      'DeviceGatewayBound',
      'DeviceEnabled',
      'DeviceDisabled',
      'DeviceModelUpgraded',
      'DeviceTemplateApplied',
      'DeviceDeleted',
      'ProductUpdated',
      'ProductPublished',
      'ProductUnpublished',
      'ProductDeleted',
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
        case 'DeviceUpdated':
        case 'DeviceMoved':
        case 'DeviceGatewayBound':
        case 'DeviceEnabled':
        case 'DeviceDisabled':
        case 'DeviceModelUpgraded':
        case 'DeviceTemplateApplied':
        case 'DeviceDeleted':
        case 'ProductUpdated':
        case 'ProductPublished':
        case 'ProductUnpublished':
        case 'ProductDeleted':
          return rules?.forget(event);
        default:
          return;
      }
    },
  });
}
