import { DomainError, sizeInMb, type FileRoutes, type FileRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { fileById, fileBytesOfTenant, filesPage, type FileRecord } from '@iot/projections/file/read.ts';
import { byteRangeOf } from './range.ts';

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

/** A file name as a Content-Disposition carries it: ASCII fallback, and the UTF-8 name (RFC 6266). */
const disposition = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/** File management's reads: the list, one file, the quota, and the bytes with HTTP ranges. */
export const fileQueryHandlers: Pick<Handlers<FileRoutes>, 'file.list' | 'file.detail' | 'file.usage' | 'file.download'> = {
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
    if (!file || !ctx.ports.files) throw new DomainError('NOT_FOUND');
    const range = byteRangeOf(ctx.range, file.size);
    if (range === 'unsatisfiable') throw new DomainError('RANGE_NOT_SATISFIABLE', { size: file.size });
    const body = await ctx.ports.files.read(file.storageKey, range ?? undefined);
    if (!body) throw new DomainError('NOT_FOUND');
    const headers: Record<string, string> = {
      'accept-ranges': 'bytes',
      'content-disposition': disposition(file.name),
      etag: `"${file.sha256}"`,
      'content-length': String(range ? range.end - range.start + 1 : file.size),
    };
    if (!range) return rawAnswer('application/octet-stream', body, undefined, headers);
    headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`;
    return { ...rawAnswer('application/octet-stream', body, undefined, headers), status: 206 };
  },
};
