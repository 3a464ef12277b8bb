import { DomainError, type RestartRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { restartCounts, restartDevicesPage, restartTaskById, restartTasksPage } from '@iot/projections/restart/read.ts';

/** Restart tasks and their devices (issue 21). */
export const restartQueryHandlers: Pick<Handlers<RestartRoutes>, 'restartTask.list' | 'restartTask.devices'> = {
  async 'restartTask.list'({ query: q }, ctx) {
    const page = await restartTasksPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, status: q.status }, q);
    const counts = await restartCounts(
      ctx.ports.db,
      page.rows.map((t) => t.id),
    );
    return {
      ...page,
      rows: page.rows.map((t) => ({
        id: t.id,
        name: t.name,
        target: t.target,
        status: t.status,
        taskTime: t.taskTime.toISOString(),
        expiry: t.expiry.toISOString(),
        counts: counts.get(t.id)!,
        createTime: t.createdAt.toISOString(),
        updateTime: t.updatedAt.toISOString(),
      })),
    };
  },

  async 'restartTask.devices'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    if (!(await restartTaskById(ctx.ports.db, tenantId, q.taskId))) throw new DomainError('NOT_FOUND');
    const page = await restartDevicesPage(ctx.ports.db, tenantId, { taskId: q.taskId, status: q.status }, { ...q, order: 'asc' });
    return { ...page, rows: page.rows.map(({ updatedAt, ...d }) => ({ ...d, updateTime: updatedAt.toISOString() })) };
  },
};
