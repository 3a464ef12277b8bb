import type { ForwardRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import {
  forwardDeadPage,
  forwardRulesPage,
  forwardServersPage,
  mqttAclsPage,
  mqttUsersPage,
  type ForwardServerRecord,
} from '@iot/projections/forward/read.ts';
import { mapRows } from '../shared/paging.ts';

type ForwardReads =
  'forwardServer.listMqtt' | 'forwardServer.listHttp' | 'forwardConfig.list' | 'forwardConfig.dead' | 'mqttUser.list' | 'mqttAcl.list';

const toServerRow = ({ createdAt, tenantId: _tenant, ...server }: ForwardServerRecord) => ({
  ...server,
  createTime: createdAt.toISOString(),
});

/** Reads of the forwarding screens. */
export const forwardQueryHandlers: Pick<Handlers<ForwardRoutes>, ForwardReads> = {
  async 'forwardServer.listMqtt'({ query: q }, ctx) {
    return mapRows(await forwardServersPage(ctx.ports.db, callerOf(ctx).tenantId, { type: 'mqtt', name: q.name }, q), toServerRow);
  },
  async 'forwardServer.listHttp'({ query: q }, ctx) {
    return mapRows(await forwardServersPage(ctx.ports.db, callerOf(ctx).tenantId, { type: 'http', name: q.name }, q), toServerRow);
  },
  async 'forwardConfig.list'({ query: q }, ctx) {
    const page = await forwardRulesPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return mapRows(page, ({ createdAt, tenantId: _tenant, ...rule }) => ({ ...rule, createTime: createdAt.toISOString() }));
  },
  async 'forwardConfig.dead'({ query: q }, ctx) {
    const page = await forwardDeadPage(ctx.ports.db, callerOf(ctx).tenantId, { ruleId: q.ruleId }, q);
    return mapRows(page, ({ createdAt, ...dead }) => ({ ...dead, createTime: createdAt.toISOString() }));
  },
  async 'mqttUser.list'({ query: q }, ctx) {
    const page = await mqttUsersPage(ctx.ports.db, callerOf(ctx).tenantId, { username: q.username }, q);
    return mapRows(page, ({ createdAt, tenantId: _tenant, ...user }) => ({ ...user, createTime: createdAt.toISOString() }));
  },
  async 'mqttAcl.list'({ query: q }, ctx) {
    const page = await mqttAclsPage(ctx.ports.db, callerOf(ctx).tenantId, { mqttUserId: q.mqttUserId, topic: q.topic }, q);
    return mapRows(page, ({ createdAt, ...acl }) => ({ ...acl, createTime: createdAt.toISOString() }));
  },
};
