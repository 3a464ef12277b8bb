import { appRoutes } from './app/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { oplogRoutes } from './oplog/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { deviceRoutes } from './device/routes.ts';
import { telemetryRoutes } from './telemetry/routes.ts';
import { alarmRoutes } from './alarm/routes.ts';
import { forwardRoutes } from './forward/routes.ts';
import { ruleRoutes } from './rule/routes.ts';
import { dictRoutes } from './dict/routes.ts';
import { groupRoutes } from './group/routes.ts';
import { menuRoutes } from './menu/routes.ts';
import { roleRoutes } from './role/routes.ts';
import { tenantRoutes } from './tenant/routes.ts';
import { userRoutes } from './user/routes.ts';
import { statRoutes } from './stat/routes.ts';
import { fieldRoutes } from './field/routes.ts';
import { fileRoutes } from './file/routes.ts';
import { otaRoutes } from './ota/routes.ts';
import { restartRoutes } from './restart/routes.ts';
import { ptRoutes } from './pt/routes.ts';
import { videoRoutes } from './video/routes.ts';
import { sceneRoutes } from './scene/routes.ts';
import { analysisRoutes } from './analysis/routes.ts';
import { reportRoutes } from './report/routes.ts';
import { marketRoutes } from './market/routes.ts';
import { systemOpsRoutes } from './system/routes.ts';
import { systemMqttRoutes } from './system/mqtt.ts';
import { operationRoutes } from './operation/routes.ts';
import { diagramRoutes } from './diagram/routes.ts';
import { screenRoutes } from './screen/routes.ts';
import { powerRoutes } from './power/routes.ts';

/**
 * Every HTTP route of the platform, by name: the one source of paths, permissions and schemas for the
 * server, the web client, OpenAPI and the security walks.
 */
export const routes = {
  ...tenantRoutes,
  ...userRoutes,
  ...groupRoutes,
  ...roleRoutes,
  ...menuRoutes,
  ...dictRoutes,
  ...authRoutes,
  ...appRoutes,
  ...settingsRoutes,
  ...oplogRoutes,
  ...deviceRoutes,
  ...telemetryRoutes,
  ...alarmRoutes,
  ...forwardRoutes,
  ...statRoutes,
  ...fieldRoutes,
  ...ruleRoutes,
  ...fileRoutes,
  ...otaRoutes,
  ...restartRoutes,
  ...ptRoutes,
  ...videoRoutes,
  ...sceneRoutes,
  ...analysisRoutes,
  ...reportRoutes,
  ...marketRoutes,
  ...systemOpsRoutes,
  ...systemMqttRoutes,
  ...operationRoutes,
  ...diagramRoutes,
  ...screenRoutes,
  ...powerRoutes,
};
export type Routes = typeof routes;
export type RouteName = keyof Routes;
