import { userQueryHandlers } from './user/handlers.ts';
import { authQueryHandlers } from './auth/handlers.ts';
import { appQueryHandlers } from './app/handlers.ts';
import { settingsQueryHandlers } from './settings/handlers.ts';
import { oplogQueryHandlers } from './oplog/handlers.ts';
import { tenantAsOfHandlers } from './oplog/as-of.ts';
import { groupQueryHandlers } from './group/handlers.ts';
import { roleQueryHandlers } from './role/handlers.ts';
import { menuQueryHandlers } from './menu/handlers.ts';
import { dictQueryHandlers } from './dict/handlers.ts';
import { tenantQueryHandlers } from './tenant/handlers.ts';
import { deviceQueryHandlers } from './device/handlers.ts';
import { deviceHistoryHandlers } from './device/history.ts';
import { telemetryQueryHandlers } from './telemetry/handlers.ts';
import { deviceCommandQueryHandlers } from './telemetry/commands.ts';
import { alarmQueryHandlers } from './alarm/handlers.ts';
import { forwardQueryHandlers } from './forward/handlers.ts';
import { statQueryHandlers } from './stat/handlers.ts';
import { fieldQueryHandlers } from './field/handlers.ts';
import { powerQueryHandlers } from './power/handlers.ts';
import { reportQueryHandlers } from './report/handlers.ts';
import { marketQueryHandlers } from './market/handlers.ts';
import { ruleQueryHandlers } from './rule/handlers.ts';
import { fileQueryHandlers } from './file/handlers.ts';
import { otaQueryHandlers } from './ota/handlers.ts';
import { restartQueryHandlers } from './restart/handlers.ts';
import { ptQueryHandlers } from './pt/handlers.ts';
import { videoQueryHandlers } from './video/handlers.ts';
import { sceneQueryHandlers } from './scene/handlers.ts';
import { analysisQueryHandlers } from './analysis/handlers.ts';
import { resourceQueryHandlers } from './system/resources.ts';
import { taskQueryHandlers } from './system/tasks.ts';
import { mqttBrokerQueryHandlers } from './system/mqtt.ts';
import { operationQueryHandlers } from './operation/handlers.ts';
import { diagramQueryHandlers } from './diagram/handlers.ts';
import { screenQueryHandlers } from './screen/handlers.ts';

/** The read side's handlers, one per read route of the route table. */
export const queryHandlers = {
  ...userQueryHandlers,
  ...authQueryHandlers,
  ...appQueryHandlers,
  ...settingsQueryHandlers,
  ...oplogQueryHandlers,
  ...tenantAsOfHandlers,
  ...groupQueryHandlers,
  ...roleQueryHandlers,
  ...menuQueryHandlers,
  ...dictQueryHandlers,
  ...tenantQueryHandlers,
  ...deviceQueryHandlers,
  ...deviceHistoryHandlers,
  ...telemetryQueryHandlers,
  ...deviceCommandQueryHandlers,
  ...alarmQueryHandlers,
  ...forwardQueryHandlers,
  ...statQueryHandlers,
  ...fieldQueryHandlers,
  ...powerQueryHandlers,
  ...otaQueryHandlers,
  ...restartQueryHandlers,
  ...reportQueryHandlers,
  ...marketQueryHandlers,
  ...ruleQueryHandlers,
  ...fileQueryHandlers,
  ...ptQueryHandlers,
  ...videoQueryHandlers,
  ...sceneQueryHandlers,
  ...analysisQueryHandlers,
  ...resourceQueryHandlers,
  ...taskQueryHandlers,
  ...mqttBrokerQueryHandlers,
  ...operationQueryHandlers,
  ...diagramQueryHandlers,
  ...screenQueryHandlers,
};
