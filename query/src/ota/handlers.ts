import { DomainError, type OtaCounts, type OtaRoutes, type OtaTaskRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { fileAnswer } from '../file/range.ts';
import {
  otaCounts,
  otaDevicesPage,
  otaFileForDevice,
  otaTaskById,
  otaTasksPage,
  otaWaveCounts,
  type OtaTaskRecord,
} from '@iot/projections/ota/read.ts';

const toRow = (t: OtaTaskRecord, counts: OtaCounts): OtaTaskRow => ({
  id: t.id,
  name: t.name,
  file: {
    fileId: t.file.fileId,
    name: t.file.name,
    fileType: t.file.fileType,
    version: t.file.version,
    size: t.file.size,
    sha256: t.file.sha256,
  },
  target: t.target,
  waves: t.waves,
  status: t.status,
  wave: t.wave,
  waveCount: t.waveCount,
  nextWaveAt: t.nextWaveAt?.toISOString() ?? null,
  reason: t.reason,
  counts,
  createTime: t.createdAt.toISOString(),
  updateTime: t.updatedAt.toISOString(),
});

/** Rollout tasks, their waves and their devices (issue 21). */
export const otaQueryHandlers: Pick<Handlers<OtaRoutes>, 'otaTask.list' | 'otaTask.detail' | 'otaTask.devices' | 'otaTask.firmware'> = {
  async 'otaTask.list'({ query: q }, ctx) {
    const page = await otaTasksPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, status: q.status }, q);
    const counts = await otaCounts(
      ctx.ports.db,
      page.rows.map((t) => t.id),
    );
    return { ...page, rows: page.rows.map((t) => toRow(t, counts.get(t.id)!)) };
  },

  async 'otaTask.detail'({ query }, ctx) {
    const task = await otaTaskById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!task) throw new DomainError('NOT_FOUND');
    const counts = await otaCounts(ctx.ports.db, [task.id]);
    return { ...toRow(task, counts.get(task.id)!), waveCounts: await otaWaveCounts(ctx.ports.db, task.id) };
  },

  async 'otaTask.devices'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    if (!(await otaTaskById(ctx.ports.db, tenantId, q.taskId))) throw new DomainError('NOT_FOUND');
    const page = await otaDevicesPage(ctx.ports.db, tenantId, { taskId: q.taskId, wave: q.wave, status: q.status }, { ...q, order: 'asc' });
    return { ...page, rows: page.rows.map(({ updatedAt, ...d }) => ({ ...d, updateTime: updatedAt.toISOString() })) };
  },

  async 'otaTask.firmware'({ query }, ctx) {
    const grant = ctx.ports.downloadLinks?.verify(query.token) ?? null;
    if (grant === 'expired') throw new DomainError('OTA_LINK_EXPIRED');
    if (!grant || grant.sn !== query.sn) throw new DomainError('OTA_LINK_INVALID');
    // A link is good only while the device's part in the task runs: once done, failed or cancelled it fetches no more.
    const file = ctx.ports.otaFiles
      ? await ctx.ports.otaFiles.forTask(grant.tenantId, grant.taskId, grant.deviceId)
      : await otaFileForDevice(ctx.ports.db, grant.tenantId, grant.taskId, grant.deviceId);
    if (!file) throw new DomainError('OTA_LINK_INVALID');
    return fileAnswer(ctx.ports.files, file, ctx.range);
  },
};
