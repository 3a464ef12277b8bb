import { authorityFileTypes, DomainError, sizeInMb, type FileRoutes, type FileRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { fileById, fileBytesOfTenant, filesPage, type FileRecord } from '@iot/projections/file/read.ts';
import { fileAnswer } from './range.ts';

const toRow = (f: FileRecord): FileRow => ({
  id: f.id,
  name: f.name,
  size: f.size,
  sizeMb: sizeInMb(f.size),
  sha256: f.sha256,
  fileType: f.fileType,
  extensionType: f.extensionType,
  version: f.version,
  declaration: f.declaration,
  uploaderId: f.uploaderId,
  uploader: f.uploader,
  createTime: f.createdAt.toISOString(),
});

/** File management's reads: the list, one file, the quota, and the bytes with HTTP ranges. */
export const fileQueryHandlers: Pick<
  Handlers<FileRoutes>,
  'file.list' | 'file.detail' | 'file.usage' | 'file.download' | 'authFile.download'
> = {
  async 'file.list'({ query: q }, ctx) {
    const filter = { name: q.name, fileType: q.fileType, extensionType: q.extensionType, uploader: q.uploader };
    const page = await filesPage(ctx.ports.db, callerOf(ctx).tenantId, filter, q);
    return { ...page, rows: page.rows.map(toRow) };
  },

  async 'file.detail'({ query }, ctx) {
    const file = await fileById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!file) throw new DomainError('NOT_FOUND');
    return toRow(file);
  },

  async 'file.usage'(_input, ctx) {
    const limits = ctx.ports.fileLimits ?? { quotaBytes: 0, maxFileBytes: 0 };
    return { usedBytes: await fileBytesOfTenant(ctx.ports.db, callerOf(ctx).tenantId), ...limits };
  },

  async 'file.download'({ query }, ctx) {
    const file = await fileById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!file) throw new DomainError('NOT_FOUND');
    return fileAnswer(ctx.ports.files, file, ctx.range);
  },

  async 'authFile.download'({ query }, ctx) {
    const file = await fileById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!file || !authorityFileTypes.some((t) => t === file.fileType)) throw new DomainError('NOT_FOUND');
    return fileAnswer(ctx.ports.files, file, ctx.range);
  },
};
