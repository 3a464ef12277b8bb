import { DomainError, type CameraRow, type VideoRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { groupSubtree } from '@iot/projections/group/read.ts';
import { cameraById, camerasPage, snapshotOfAlarm, type CameraRecord } from '@iot/projections/video/read.ts';

const toRow = (c: CameraRecord): CameraRow => ({
  id: c.id,
  name: c.name,
  streamUrl: c.streamUrl,
  groupId: c.groupId,
  deviceId: c.deviceId,
  location: c.location,
  remark: c.remark,
  createTime: c.createdAt.toISOString(),
  updateTime: c.updatedAt.toISOString(),
});

/** The groups a list is narrowed to: the current station's subtree (`stationId`) and the chosen group's, both when both. */
async function groupScope(ctx: RequestContext, groupId: string | undefined): Promise<string[] | undefined> {
  const { tenantId, stationId } = callerOf(ctx);
  let scope: string[] | undefined;
  for (const root of [stationId, groupId]) {
    if (!root) continue;
    const subtree = await groupSubtree(ctx.ports.db, tenantId, root);
    scope = scope ? scope.filter((g) => subtree.includes(g)) : subtree;
  }
  return scope;
}

/** Cameras of the video wall and the snapshots alarms carry (issue 21). */
export const videoQueryHandlers: Pick<Handlers<VideoRoutes>, 'camera.list' | 'camera.detail' | 'camera.snapshot'> = {
  async 'camera.list'({ query: q }, ctx) {
    const groupIds = await groupScope(ctx, q.groupId);
    const page = await camerasPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, groupIds, deviceId: q.deviceId }, q);
    return { ...page, rows: page.rows.map(toRow) };
  },

  async 'camera.detail'({ query }, ctx) {
    const camera = await cameraById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    const scope = camera && (await groupScope(ctx, undefined));
    if (!camera || (scope && !scope.includes(camera.groupId ?? ''))) throw new DomainError('NOT_FOUND');
    return toRow(camera);
  },

  async 'camera.snapshot'({ query }, ctx) {
    const snapshot = await snapshotOfAlarm(ctx.ports.db, callerOf(ctx).tenantId, query.alarmId);
    if (!snapshot) throw new DomainError('NOT_FOUND');
    return { ...snapshot, at: snapshot.at.toISOString() };
  },
};
