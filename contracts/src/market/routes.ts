import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  marketData,
  marketDataQuery,
  marketDatasetFields,
  marketDatasetRow,
  marketDatasetSortable,
  marketDatasetUpdateBody,
  marketSharedRow,
  marketSubscribeBody,
  marketSubscriptionRow,
  marketSubscriptionSortable,
  marketSubscriptionStatuses,
} from './model.ts';
import { marketPerm as p } from './permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'dataMarket';

/** The data market (issue 20): data sets published as read-only endpoints, subscribed by the tenant's apps. */
export const marketRoutes = {
  'market.datasets': route({
    method: 'GET',
    path: '/api/iot/market/dataset',
    permission: p.list,
    tag,
    summary: 'Data sets the tenant publishes, with their subscriber counts',
    query: listQuery(marketDatasetSortable, { name: z.string().trim().max(64).optional() }),
    response: page(marketDatasetRow),
    reads: ['market'],
  }),
  'market.shared': route({
    method: 'GET',
    path: '/api/iot/market/shared',
    permission: p.list,
    tag,
    summary: 'Data sets other tenants share with this one (chosen with it, or global), to subscribe an app to',
    query: listQuery(marketDatasetSortable, { name: z.string().trim().max(64).optional() }),
    response: page(marketSharedRow),
    reads: ['market'],
  }),
  'market.publish': route({
    method: 'POST',
    path: '/api/iot/market/dataset',
    permission: p.add,
    tag,
    summary: "Publish a data set: a group's variables, a statistic task's results or a saved report, over the last N days",
    body: marketDatasetFields,
    response: idResult,
    reads: ['market'],
    errors: ['NOT_FOUND'],
  }),
  'market.update': route({
    method: 'PUT',
    path: '/api/iot/market/dataset',
    permission: p.edit,
    tag,
    summary: 'Edit a published data set',
    body: marketDatasetUpdateBody,
    response: idResult,
    reads: ['market'],
    errors: ['NOT_FOUND'],
  }),
  'market.withdraw': route({
    method: 'DELETE',
    path: '/api/iot/market/dataset',
    permission: p.delete,
    tag,
    summary: 'Withdraw a data set: its subscriptions end with it',
    query: idBody,
    response: idResult,
    reads: ['market'],
    errors: ['NOT_FOUND'],
  }),
  'market.subscriptions': route({
    method: 'GET',
    path: '/api/iot/market/subscription',
    permission: p.list,
    tag,
    summary: 'Subscriptions of the tenant’s apps, and of other tenants’ apps to its data sets, with the calls counted under each',
    query: listQuery(marketSubscriptionSortable, {
      datasetId: z.string().trim().max(64).optional(),
      status: z.enum(marketSubscriptionStatuses).optional(),
    }),
    response: page(marketSubscriptionRow),
    reads: ['market'],
  }),
  'market.subscribe': route({
    method: 'POST',
    path: '/api/iot/market/subscription',
    permission: p.subscribe,
    tag,
    summary: 'Subscribe an app of the tenant to a data set',
    body: marketSubscribeBody,
    response: idResult,
    reads: ['market'],
    errors: ['NOT_FOUND', 'CONFLICT'],
  }),
  'market.revoke': route({
    method: 'PUT',
    path: '/api/iot/market/subscription/revoke',
    permission: p.revoke,
    tag,
    summary: 'Revoke a subscription: the app’s next call is refused',
    body: idBody,
    response: idResult,
    reads: ['market'],
    errors: ['NOT_FOUND'],
  }),
  'market.data': route({
    method: 'GET',
    path: '/api/iot/market/data',
    permission: p.data,
    tag,
    summary: 'A data set as a subscribed app reads it (app token): its table over the last N days; each call is counted',
    query: marketDataQuery,
    response: marketData,
    reads: ['market'],
    errors: ['NOT_FOUND', 'NOT_SUBSCRIBED'],
  }),
};
export type MarketRoutes = typeof marketRoutes;
