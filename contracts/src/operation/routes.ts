import { z } from 'zod';
import { route } from '../http/route.ts';
import { latestValue } from '../telemetry/routes.ts';
import { bigScreen, bigScreenQuery, dataMap, dataMapQuery, deviceIdQuery } from './model.ts';
import { operationPerm as p } from './permissions.ts';

const tag = 'operation';

/** The data map and the data big screen (spec §2 operation center, issue 20). */
export const operationRoutes = {
  'operation.dataMap': route({
    method: 'GET',
    path: '/api/iot/operation/dataMap',
    permission: p.dataMapList,
    tag,
    summary:
      "Devices of the caller's group subtree with coordinates, their status and active alarms, filtered by product, group and status",
    query: dataMapQuery,
    response: dataMap,
    reads: ['devices', 'alarms'],
    errors: ['NOT_FOUND'],
  }),
  'operation.dataMapLatest': route({
    method: 'GET',
    path: '/api/iot/operation/dataMap/latest',
    permission: p.dataMapList,
    tag,
    summary: "A device's newest value of every variable, for its card on the data map",
    query: deviceIdQuery,
    response: z.array(latestValue),
    reads: ['devices'],
    errors: ['NOT_FOUND'],
  }),
  'operation.bigScreen': route({
    method: 'GET',
    path: '/api/iot/operation/bigScreen',
    permission: p.bigScreenList,
    tag,
    summary:
      "The data big screen: the home dashboard's figures and the last 7 days' alarm trend, levels and top devices, for the caller's group subtree",
    query: bigScreenQuery,
    response: bigScreen,
    reads: ['devices', 'alarms', 'oplog'],
  }),
};
export type OperationRoutes = typeof operationRoutes;
