import type { FileRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { runCommand } from '../request.ts';
import { fileDecider, fileStream } from './decide.ts';

/** File management's writes: a finished upload recorded, a file deleted (its bytes after its event). */
export const fileHandlers: Pick<Handlers<FileRoutes>, 'file.upload' | 'file.delete'> = {
  async 'file.upload'({ body }, ctx) {
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
  },

  async 'file.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const inUse = await ctx.ports.lookups.fileInUse(tenantId, query.id);
    const { state } = await runCommand(ctx, fileDecider, fileStream(tenantId, query.id), { type: 'DeleteFile', fileId: query.id, inUse });
    if (state.storageKey) await ctx.ports.files?.remove(state.storageKey);
    return { id: query.id };
  },
};
