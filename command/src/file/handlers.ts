import type { FileRoutes, FileUploadFields } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { TusUploadFinished } from '@iot/contracts/http/route.ts';
import { runCommand } from '../request.ts';
import { fileDecider, fileStream } from './decide.ts';

/** A finished upload (the IoT one or the authority service's) recorded as the caller's file. */
async function recordUpload({ body }: { body: TusUploadFinished<FileUploadFields> }, ctx: RequestContext): Promise<{ id: string }> {
  const caller = callerOf(ctx);
  const fileId = body.uploadId;
  await runCommand(ctx, fileDecider, fileStream(caller.tenantId, fileId), {
    type: 'RecordUploadedFile',
    file: {
      fileId,
      ...body.fields,
      size: body.size,
      sha256: body.sha256,
      storageKey: body.storageKey,
      uploaderId: caller.id,
      uploader: caller.username,
    },
  });
  return { id: fileId };
}

/** File management's writes: a finished upload recorded, a file deleted (its bytes after its event). */
export const fileHandlers: Pick<Handlers<FileRoutes>, 'file.upload' | 'file.delete' | 'authFile.upload'> = {
  'file.upload': recordUpload,
  'authFile.upload': recordUpload,

  async 'file.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const inUse = await ctx.ports.lookups.fileInUse(tenantId, query.id);
    const { state } = await runCommand(ctx, fileDecider, fileStream(tenantId, query.id), { type: 'DeleteFile', fileId: query.id, inUse });
    if (state.storageKey) await ctx.ports.files?.remove(state.storageKey);
    return { id: query.id };
  },
};
