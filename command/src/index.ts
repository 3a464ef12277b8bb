import type { Ports } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers } from '@iot/contracts/ports/dispatch.ts';
import { tenantDispatchers, tenantHandlers } from './tenant/handlers.ts';
import { tenantOnboarding } from './tenant/onboarding.ts';
import { userHandlers } from './user/handlers.ts';
import { authHandlers } from './auth/handlers.ts';
import { appHandlers } from './app/handlers.ts';
import { settingsHandlers } from './settings/handlers.ts';
import { groupHandlers } from './group/handlers.ts';
import { roleHandlers } from './role/handlers.ts';
import { menuHandlers } from './menu/handlers.ts';
import { dictHandlers } from './dict/handlers.ts';
import { productHandlers } from './product/handlers.ts';
import { deviceDispatchers, deviceHandlers, importHandlers } from './device/handlers.ts';
import { templateHandlers } from './template/handlers.ts';
import { alarmDispatchers, alarmHandlers } from './alarm/handlers.ts';
import { notifyHandlers } from './notify/handlers.ts';
import { statHandlers } from './stat/handlers.ts';
import { statRunNowHandlers } from './stat/run-now.ts';
import { fieldHandlers } from './field/handlers.ts';
import { powerHandlers } from './power/handlers.ts';
import { fileHandlers } from './file/handlers.ts';
import { reportHandlers } from './report/handlers.ts';
import { marketHandlers } from './market/handlers.ts';
import { notifySettingsHandlers } from './notify/settings.ts';
import { forwardHandlers } from './forward/handlers.ts';
import { ruleDispatchers, ruleHandlers } from './rule/handlers.ts';
import { otaDispatchers, otaHandlers } from './ota/handlers.ts';
import { otaRollout } from './ota/rollout.ts';
import { restartDispatchers, restartHandlers } from './restart/handlers.ts';
import { restartResults } from './restart/results.ts';
import { ptHandlers } from './pt/handlers.ts';
import { videoHandlers } from './video/handlers.ts';
import { screenHandlers } from './screen/handlers.ts';
import { diagramHandlers, topoElementHandlers } from './diagram/handlers.ts';
import { mqttBrokerHandlers } from './system/mqtt.ts';
import { sceneDispatchers, sceneHandlers } from './scene/handlers.ts';
import { commandHandlers as deviceCommandHandlers, replyDispatchers, telemetryHandlers } from './telemetry/handlers.ts';

import type { Workflow } from './tenant/onboarding.ts';
import type { DomainEvent } from './decider.ts';

export type { Workflow } from './tenant/onboarding.ts';

/** The write side's handlers, one per write route of the route table. */
export const commandHandlers = {
  ...tenantHandlers,
  ...userHandlers,
  ...authHandlers,
  ...appHandlers,
  ...settingsHandlers,
  ...groupHandlers,
  ...roleHandlers,
  ...menuHandlers,
  ...dictHandlers,
  ...productHandlers,
  ...deviceHandlers,
  ...importHandlers,
  ...templateHandlers,
  ...telemetryHandlers,
  ...deviceCommandHandlers,
  ...alarmHandlers,
  ...notifyHandlers,
  ...notifySettingsHandlers,
  ...forwardHandlers,
  ...statHandlers,
  ...statRunNowHandlers,
  ...fieldHandlers,
  ...fileHandlers,
  ...reportHandlers,
  ...marketHandlers,
  ...ruleHandlers,
  ...otaHandlers,
  ...restartHandlers,
  ...ptHandlers,
  ...videoHandlers,
  ...diagramHandlers,
  ...screenHandlers,
  ...topoElementHandlers,
  ...mqttBrokerHandlers,
  ...sceneHandlers,
  ...powerHandlers,
};

/** The commands that workflows and reactors may dispatch, by type (bound to the dispatch port in infra/). */
export function commandDispatchers(ports: Omit<Ports, 'dispatch'>): CommandDispatchers {
  return {
    ...tenantDispatchers(ports),
    ...deviceDispatchers(ports),
    ...replyDispatchers(ports),
    ...alarmDispatchers(ports),
    ...ruleDispatchers(ports),
    ...otaDispatchers(ports),
    ...restartDispatchers(ports),
    ...sceneDispatchers(ports),
  };
}

/** The process managers, run beside the projections with checkpoints of their own. */
export const workflows: Workflow<DomainEvent>[] = [tenantOnboarding, otaRollout, restartResults];
